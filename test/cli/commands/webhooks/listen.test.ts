/**
 * `roster webhooks listen` in-process on a real port: deliveries signed with the standardwebhooks
 * package (not our signing code) are verified over the raw body and printed; a wrong secret, an
 * old timestamp, missing headers or a changed body are 401 with a line on stderr; a body over the
 * cap is 413; Ctrl-C (SIGINT) ends it with a summary and exit 0.
 */
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_DELIVERY_BYTES } from '../../../../src/cli/commands/webhooks/receiver.js';
import { run } from '../../../../src/cli/main.js';
import { FORMATS, formatterOf } from '../../../../src/cli/output/formats/index.js';
import { fakeIO } from '../../helpers.js';

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const event = {
  id: '6b15c6e5-0000-4000-8000-000000000001',
  sequence: 1042,
  type: 'user.updated',
  occurredAt: '2026-12-06T21:03:11.512Z',
  actor: { type: 'token', id: 't1', name: 'nightly-import' },
  channel: 'api',
  requestId: 'r1',
  target: { type: 'user', id: 'u1', email: 'ann@example.com' },
  changes: { 'profile.department': { from: 'Ops', to: 'Sales' } },
};
const delivery = (e = event) => JSON.stringify({ type: e.type, timestamp: e.occurredAt, data: e });

function signed(body: string, opts: { key?: string; ts?: number; id?: string } = {}) {
  const ts = opts.ts ?? Math.floor(Date.now() / 1000);
  const id = opts.id ?? event.id;
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(ts),
    'webhook-signature': new Webhook(opts.key ?? secret).sign(id, new Date(ts * 1000), body),
  };
}

interface Listening {
  url: string;
  stdout: () => string;
  stderr: () => string;
  /** Waits until stderr has a line matching `re`. */
  stderrLine: (re: RegExp) => Promise<string>;
  stop: () => Promise<number>;
}
const running: Listening[] = [];
afterEach(async () => {
  for (const l of running.splice(0)) await l.stop();
});

async function listen(args: string[] = ['--secret', secret], env: Record<string, string> = {}) {
  const fake = fakeIO();
  const done = run(['node', 'roster', 'webhooks', 'listen', '--port', '0', ...args], {
    io: fake.io,
    env: { NO_COLOR: '1', ...env },
  });
  const stderrLine = (re: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const line = fake
          .err()
          .split('\n')
          .find((l) => re.test(l));
        if (line === undefined) return false;
        fake.io.stderr.off('data', check);
        resolve(line);
        return true;
      };
      if (check()) return;
      fake.io.stderr.on('data', check);
      done.then(() => check() || reject(new Error(`ended without ${re}: ${fake.err()}`)));
    });
  let stopped: Promise<number> | undefined;
  const listening: Listening = {
    url: '',
    stdout: fake.out,
    stderr: fake.err,
    stderrLine,
    stop: () => {
      if (!stopped) {
        process.emit('SIGINT');
        stopped = done;
      }
      return stopped;
    },
  };
  const line = await stderrLine(/listening on http:\/\//);
  listening.url = /(http:\/\/\S+)/.exec(line)![1]!;
  running.push(listening);
  return { listening, done };
}

const post = async (url: string, body: string, headers: Record<string, string>) => {
  const answer = await request(url, { method: 'POST', body, headers });
  await answer.body.dump();
  return answer.statusCode;
};

describe('webhooks listen', () => {
  it('verifies a signed delivery, answers 204 and prints one line of at most 80 columns', async () => {
    const { listening: l } = await listen();
    const body = delivery();
    expect(await post(l.url, body, signed(body))).toBe(204);
    const line = l.stdout().trim();
    expect(line).toBe('21:03:11 user.updated ann@example.com (nightly-import/api) 1 change');
    expect(line.length).toBeLessThanOrEqual(80);
  });

  it('-o ndjson: the delivery as received, one JSON object a line', async () => {
    const { listening: l } = await listen(['--secret', secret, '-o', 'ndjson']);
    for (const n of [1, 2]) {
      const body = delivery({ ...event, sequence: n });
      expect(await post(l.url, body, signed(body))).toBe(204);
    }
    const lines = l
      .stdout()
      .trim()
      .split('\n')
      .map((x) => JSON.parse(x));
    expect(lines.map((d) => d.data.sequence)).toEqual([1, 2]);
    expect(lines[0]).toEqual(JSON.parse(delivery({ ...event, sequence: 1 })));
  });

  it('the secret from ROSTER_WEBHOOK_SECRET; two signatures (a rotation) where one is ours', async () => {
    const { listening: l } = await listen([], { ROSTER_WEBHOOK_SECRET: secret });
    const body = delivery();
    const other = `whsec_${randomBytes(32).toString('base64')}`;
    const theirs = signed(body, { key: other })['webhook-signature'];
    const headers = signed(body);
    headers['webhook-signature'] = `${theirs} ${headers['webhook-signature']}`;
    expect(await post(l.url, body, headers)).toBe(204);
  });

  it('refuses with 401 and says why on stderr: another secret, a changed body, an old timestamp, no headers', async () => {
    const { listening: l } = await listen();
    const body = delivery();
    const other = `whsec_${randomBytes(32).toString('base64')}`;
    expect(await post(l.url, body, signed(body, { key: other }))).toBe(401);
    await l.stderrLine(/401 .*no signature matches/);
    // The signature covers the raw bytes: the same JSON with other spacing is another body.
    expect(await post(l.url, JSON.stringify(JSON.parse(body), null, 1), signed(body))).toBe(401);
    const old = Math.floor(Date.now() / 1000) - 600;
    expect(await post(l.url, body, signed(body, { ts: old }))).toBe(401);
    await l.stderrLine(/401 .*timestamp .* old/);
    expect(await post(l.url, body, { 'content-type': 'application/json' })).toBe(401);
    await l.stderrLine(/401 .*missing header webhook-id, webhook-timestamp, webhook-signature/);
    expect(l.stdout()).toBe('');
  });

  it('a body over the cap is 413, unread; a GET is 405', async () => {
    const { listening: l } = await listen();
    const big = 'x'.repeat(MAX_DELIVERY_BYTES + 1);
    expect(await post(l.url, big, signed(big))).toBe(413);
    await l.stderrLine(/413 .*more than/);
    const get = await request(l.url);
    await get.body.dump();
    expect(get.statusCode).toBe(405);
  });

  it('a verified body that is not JSON is 400, said on stderr', async () => {
    const { listening: l } = await listen();
    expect(await post(l.url, 'not json', signed('not json'))).toBe(400);
    await l.stderrLine(/400 .*not JSON/);
  });

  it('Ctrl-C stops it cleanly: a summary on stderr, exit 0, the port closed', async () => {
    const { listening: l } = await listen();
    const body = delivery();
    await post(l.url, body, signed(body));
    await post(l.url, body, signed(body, { key: `whsec_${randomBytes(32).toString('base64')}` }));
    expect(await l.stop()).toBe(0);
    expect(l.stderr()).toMatch(/stopped: 1 delivery verified, 1 refused/);
    const { port } = new URL(l.url);
    const refused = await new Promise<string>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () => resolve('connected'));
      socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    });
    expect(refused).toBe('ECONNREFUSED');
  });

  it('bad input: no secret, a malformed secret, a port in use', async () => {
    const fake = fakeIO();
    const code = await run(['node', 'roster', 'webhooks', 'listen', '--port', '0'], {
      io: fake.io,
      env: {},
    });
    expect(code).toBe(2);
    expect(fake.err()).toMatch(/--secret whsec_… or ROSTER_WEBHOOK_SECRET/);
    const bad = fakeIO();
    expect(
      await run(['node', 'roster', 'webhooks', 'listen', '--port', '0', '--secret', 'whsec_abc'], {
        io: bad.io,
        env: {},
      }),
    ).toBe(2);
    expect(bad.err()).toMatch(/whsec_/);
    const { listening: l } = await listen();
    const port = new URL(l.url).port;
    const busy = fakeIO();
    const args = ['node', 'roster', 'webhooks', 'listen', '--port', port, '--secret', secret];
    expect(await run(args, { io: busy.io, env: {} })).toBe(1);
    expect(busy.err()).toMatch(new RegExp(`port ${port} .* in use`));
  });

  it('--help says the environment is safer than argv for the secret', async () => {
    const fake = fakeIO();
    await run(['node', 'roster', 'webhooks', 'listen', '--help'], { io: fake.io, env: {} });
    expect(fake.out()).toMatch(/ROSTER_WEBHOOK_SECRET/);
    expect(fake.out()).toMatch(/safer/);
  });
});

describe('webhooks listen -o, through the formatter registry', () => {
  it.each(['ndjson', 'json'])(
    '-o %s: one delivery a line, the sender’s bidi and C1 controls escaped as in every JSON output',
    async (format) => {
      const { listening: l } = await listen(['--secret', secret, '-o', format]);
      const body = delivery({
        ...event,
        actor: { ...event.actor, name: 'evil\u202etxt.exe\u0085' },
      });
      expect(await post(l.url, body, signed(body))).toBe(204);
      const out = l.stdout();
      expect(out).not.toMatch(/[\u202e\u0085]/);
      expect(out).toContain('evil\\u202etxt.exe\\u0085');
      expect(
        out
          .trim()
          .split('\n')
          .map((x) => JSON.parse(x)),
      ).toEqual([JSON.parse(body)]);
    },
  );

  // From the registry: a format that cannot follow an endless stream is refused before listening.
  it.each(FORMATS.filter((f) => formatterOf(f).follows === undefined))(
    '-o %s: a usage error naming what listen prints',
    async (format) => {
      const fake = fakeIO();
      const args = ['webhooks', 'listen', '--port', '0', '--secret', secret, '-o', format];
      expect(await run(['node', 'roster', ...args], { io: fake.io, env: {} })).toBe(2);
      expect(fake.err()).toContain(
        `webhooks listen prints lines, or one JSON delivery per line with -o ndjson (not -o ${format})`,
      );
    },
  );
});
