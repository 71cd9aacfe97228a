/**
 * Webhook delivery end to end in one process, on the backend the run chooses: a real server's
 * worker sends to real receivers on loopback ports (allowed with --webhooks-allow 127.0.0.1/32
 * and --webhooks-allow-http), signatures checked with the standardwebhooks package. The
 * worker's clock is the wall clock plus a skew the tests move, so retries fall due at once.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { parseAllowList } from '../../../src/server/webhooks/egress.js';
import { eventually } from '../../helpers/eventually.js';
import { jsonBody, startServer, type TestServer } from '../../helpers/server.js';
import { type Receiver, signedHeaders, startReceiver } from '../../helpers/webhook-receiver.js';

let server: TestServer;
let skew = 0;
const receivers: Receiver[] = [];
const hooks: string[] = [];

beforeAll(async () => {
  server = await startServer({
    webhooksAllowHttp: true,
    webhooksAllow: parseAllowList('127.0.0.1/32'),
    webhookTuning: { now: () => Date.now() + skew, random: () => 0.5, pollMs: 20, timeoutMs: 1000 },
  });
});
afterEach(async () => {
  for (const id of hooks.splice(0)) await server.req('DELETE', `/api/webhooks/${id}`);
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
afterAll(() => server.close());

const receiver = async (port?: number) => {
  const r = await startReceiver(port);
  receivers.push(r);
  return r;
};
const api = (method: string, path: string, body?: unknown) =>
  server.req(method, `/api/webhooks${path}`, {
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
const hook = async (url: string, types = ['user.*']) => {
  const res = await api('POST', '', { url, types });
  expect(res.status, res.text).toBe(201);
  hooks.push(res.json.id);
  return res.json as { id: string; secret: string };
};
let n = 0;
/** A user made now; answers the id of its user.created event. */
const userEvent = async () => {
  const res = await server.req('POST', '/api/users', jsonBody({ email: `wh-${++n}@example.com` }));
  expect(res.status, res.text).toBe(201);
  const events = await server.req('GET', `/api/events?target=${res.json.id}`);
  return events.json.data[0].id as string;
};
const deliveries = async (id: string) => (await api('GET', `/${id}/deliveries`)).json.data as any[];
const deliveryOf = async (id: string, eventId: string) =>
  (await deliveries(id)).find((d) => d.eventId === eventId);
const forId = (eventId: string) => (r: { headers: Record<string, unknown> }) =>
  r.headers['webhook-id'] === eventId;

describe('what a receiver gets', () => {
  test('Standard Webhooks 1.0: the event as data, webhook-id its id, verified by the standardwebhooks package', async () => {
    const r = await receiver();
    const { id, secret } = await hook(r.url);
    const eventId = await userEvent();
    const got = await r.next(forId(eventId));
    const payload = new Webhook(secret).verify(got.body, signedHeaders(got.headers)) as any;
    expect(payload.type).toBe('user.created');
    expect(payload.data).toMatchObject({
      id: eventId,
      type: 'user.created',
      target: { type: 'user' },
    });
    expect(payload.timestamp).toBe(payload.data.occurredAt);
    expect(got.headers['content-type']).toBe('application/json');
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(24, 1).toString('base64')}`).verify(
        got.body,
        signedHeaders(got.headers),
      ),
    ).toThrow();
    await eventually(async () => (await deliveryOf(id, eventId))?.status === 'delivered');
    expect(await deliveryOf(id, eventId)).toMatchObject({
      attempts: 1,
      lastStatus: 204,
      nextAttemptAt: null,
    });
  });

  test('only the types subscribed to; POST /test sends a signed webhook.test', async () => {
    const r = await receiver();
    const { id, secret } = await hook(r.url, ['medium.*']);
    const skipped = await userEvent();
    const test = await api('POST', `/${id}/test`);
    expect(test.status, test.text).toBe(201);
    const got = await r.next(forId(test.json.eventId));
    expect((new Webhook(secret).verify(got.body, signedHeaders(got.headers)) as any).type).toBe(
      'webhook.test',
    );
    expect(r.received.some(forId(skipped))).toBe(false);
  });

  test('after a rotation both secrets sign, each verifies', async () => {
    const r = await receiver();
    const { id, secret: old } = await hook(r.url);
    const rotated = await api('POST', `/${id}/rotate-secret`);
    const eventId = await userEvent();
    const got = await r.next(forId(eventId));
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [old, rotated.json.secret]) {
      expect(() => new Webhook(secret).verify(got.body, signedHeaders(got.headers))).not.toThrow();
    }
  });
});

describe('rotations', () => {
  test('rotated twice within 24 h, every secret of those 24 h signs; each stops 24 h after it was replaced', async () => {
    const r = await receiver();
    const { id, secret: s0 } = await hook(r.url);
    const start = skew;
    try {
      const s1 = (await api('POST', `/${id}/rotate-secret`)).json.secret as string;
      skew += 60 * 60_000; // an hour later: the first output lost, say, so rotated again
      const s2 = (await api('POST', `/${id}/rotate-secret`)).json.secret as string;
      // Which secrets signed, by the reference library's signature of each (the worker's clock
      // is ahead of this one, so `verify`'s check of the timestamp against now would refuse).
      const signers = async () => {
        const got = await r.next(forId(await userEvent()));
        const sent = String(got.headers['webhook-signature']).split(' ');
        const at = new Date(Number(got.headers['webhook-timestamp']) * 1000);
        const id = String(got.headers['webhook-id']);
        return [s0, s1, s2].map((s) => sent.includes(new Webhook(s).sign(id, at, got.body)));
      };
      expect(await signers()).toEqual([true, true, true]);
      skew += 23.5 * 60 * 60_000; // 24.5 h after the first rotation, 23.5 h after the second
      expect(await signers()).toEqual([false, true, true]);
      skew += 60 * 60_000; // past both
      expect(await signers()).toEqual([false, false, true]);
    } finally {
      skew = start;
    }
  });
});

describe('failures and retries', () => {
  test('a 500 is retried 5 s later (jitter 0 here) with the same webhook-id; then delivered', async () => {
    const r = await receiver();
    r.answer((_q, res) => res.writeHead(500).end('oops'));
    const { id } = await hook(r.url);
    const eventId = await userEvent();
    await eventually(async () => (await deliveryOf(id, eventId))?.attempts === 1);
    const failed = await deliveryOf(id, eventId);
    expect(failed).toMatchObject({ status: 'pending', lastStatus: 500 });
    expect(Date.parse(failed.nextAttemptAt) - Date.parse(failed.lastAttemptAt)).toBe(5000);
    r.answer((_q, res) => res.writeHead(200).end());
    skew += 5000;
    await eventually(async () => (await deliveryOf(id, eventId))?.status === 'delivered');
    expect(r.received.filter(forId(eventId))).toHaveLength(2);
  });

  test('a manual retry sends a failed delivery again now', async () => {
    const r = await receiver();
    r.answer((_q, res) => res.writeHead(503).end());
    const { id } = await hook(r.url);
    const eventId = await userEvent();
    await eventually(async () => (await deliveryOf(id, eventId))?.attempts === 1);
    r.answer((_q, res) => res.writeHead(200).end());
    const d = await deliveryOf(id, eventId);
    const retry = await api('POST', `/${id}/deliveries/${d.id}/retry`);
    expect(retry.status, retry.text).toBe(200);
    await eventually(async () => (await deliveryOf(id, eventId))?.status === 'delivered');
  });

  test('a manual retry asked while an attempt is on its way stands, and the log says so', async () => {
    const r = await receiver();
    // The attempt is held until the retry is in, then fails.
    let release: (() => void) | undefined;
    r.answer((_q, res) => {
      release = () => res.writeHead(500).end();
    });
    const { id } = await hook(r.url);
    const eventId = await userEvent();
    await r.next(forId(eventId));
    const d = await deliveryOf(id, eventId);
    r.answer((_q, res) => res.writeHead(204).end());
    const retry = await api('POST', `/${id}/deliveries/${d.id}/retry`);
    expect(retry.status, retry.text).toBe(200);
    release!();
    await eventually(async () => (await deliveryOf(id, eventId))?.status === 'delivered');
    expect(r.received.filter(forId(eventId))).toHaveLength(2);
    const line = server.logs.find((l) => l.includes(eventId) && l.includes('not delivered'));
    expect(line).toMatch(
      /the receiver answered 500; a manual retry asked meanwhile stands: next try now$/,
    );
  });

  test('a redirect is a failure and is not followed', async () => {
    const target = await receiver();
    const r = await receiver();
    r.answer((_q, res) => res.writeHead(302, { location: `${target.url}/moved` }).end());
    const { id } = await hook(r.url);
    const eventId = await userEvent();
    await eventually(async () => (await deliveryOf(id, eventId))?.attempts === 1);
    expect(await deliveryOf(id, eventId)).toMatchObject({ status: 'pending', lastStatus: 302 });
    expect(target.received).toHaveLength(0);
  });

  test('410 Gone disables the endpoint at once, as a webhook.updated by the system', async () => {
    const r = await receiver();
    r.answer((_q, res) => res.writeHead(410).end());
    const { id } = await hook(r.url);
    const eventId = await userEvent();
    await eventually(async () => (await api('GET', `/${id}`)).json.enabled === false);
    expect((await api('GET', `/${id}`)).json.disabledReason).toContain('410');
    expect(await deliveryOf(id, eventId)).toMatchObject({ status: 'failed', lastStatus: 410 });
    const log = (await server.req('GET', `/api/events?target=${id}`)).json.data;
    expect(log.at(-1)).toMatchObject({
      type: 'webhook.updated',
      actor: { type: 'system', name: 'webhooks' },
      changes: { enabled: { from: true, to: false } },
    });
    const later = await userEvent();
    const test = await api('POST', `/${id}/test`);
    expect(test.status).toBe(201);
    expect(r.received.some(forId(later))).toBe(false);
  });

  test('five days of failures disable the endpoint', async () => {
    const r = await receiver();
    r.answer((_q, res) => res.writeHead(500).end());
    const { id } = await hook(r.url);
    const eventId = await userEvent();
    await eventually(async () => (await deliveryOf(id, eventId))?.attempts === 1);
    skew += 5 * 24 * 3600 * 1000 + 1000;
    await eventually(async () => (await api('GET', `/${id}`)).json.enabled === false);
    expect((await api('GET', `/${id}`)).json.disabledReason).toContain('5 days');
  });
});

describe('receivers that misbehave', () => {
  test('one that never answers or answers 1 GB holds only its own deliveries: the others keep getting theirs', async () => {
    const silent = await receiver();
    silent.answer(() => {}); // never answers
    let written = 0;
    let cut = false;
    const endless = await receiver();
    endless.answer((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 120);
      const pump = () => {
        while (!cut && written < 1024 ** 3) {
          written += chunk.length;
          if (!res.write(chunk)) return res.once('drain', pump);
        }
        res.end();
      };
      res.once('close', () => {
        cut = true;
      });
      pump();
    });
    const healthy = await receiver();
    const a = await hook(silent.url);
    const b = await hook(endless.url);
    await hook(healthy.url);
    const first = await userEvent();
    const second = await userEvent();
    await healthy.next(forId(first));
    await healthy.next(forId(second));
    await eventually(async () => (await deliveryOf(b.id, first))?.attempts === 1);
    expect(cut).toBe(true);
    expect(written).toBeLessThan(64 * 1024 ** 2);
    await eventually(async () => (await deliveryOf(a.id, first))?.attempts === 1);
    expect((await deliveryOf(a.id, first)).lastError).toMatch(/no complete answer within/);
  });

  test('a receiver down, then back, gets every pending event, each once', async () => {
    const probe = await startReceiver();
    const port = probe.port;
    await probe.close();
    const { id } = await hook(`http://127.0.0.1:${port}/in`);
    const ids = [await userEvent(), await userEvent(), await userEvent()];
    await eventually(async () => {
      const ds = await deliveries(id);
      return ids.every((e) => ds.find((d) => d.eventId === e)?.attempts === 1);
    });
    const back = await receiver(port);
    skew += 5000;
    for (const e of ids) await back.next(forId(e));
    await eventually(async () => (await deliveries(id)).every((d) => d.status === 'delivered'));
    expect(back.received.map((r) => r.headers['webhook-id']).sort()).toEqual([...ids].sort());
  });
});

describe('the egress guard at POST', () => {
  test('credentials, a non-http(s) scheme, a private literal, > 2,048 characters: 400 with details', async () => {
    for (const url of [
      'https://user:pw@hooks.example.com/',
      'ftp://hooks.example.com/',
      'http://10.0.0.7/in',
      'http://169.254.169.254/latest',
      `https://hooks.example.com/${'a'.repeat(2048)}`,
    ]) {
      const res = await api('POST', '', { url, types: ['user.*'] });
      expect(res.status, url).toBe(400);
      expect(res.json.details[0].field, url).toBe('url');
    }
  });
});
