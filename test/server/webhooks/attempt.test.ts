/**
 * One delivery attempt against real receivers on 127.0.0.1 (through the guarded dispatcher, as
 * the worker sends): what counts as delivered, failed or gone, Retry-After in both forms, a
 * redirect never followed, a receiver that never answers (a short injected timeout), and one
 * that answers without end (at most maxAnswerBytes read, then the socket is closed).
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { sendAttempt } from '../../../src/server/webhooks/attempt.js';
import { guardedDispatcher, parseAllowList } from '../../../src/server/webhooks/egress.js';
import { freePort, startServer } from '../../helpers/fake-server.js';

type Receiver = Awaited<ReturnType<typeof startServer>>;
const opened: Receiver[] = [];
const dispatchers: ReturnType<typeof guardedDispatcher>[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((r) => r.close()));
  await Promise.all(dispatchers.splice(0).map((d) => d.destroy()));
});

async function receiver(answer: (res: ServerResponse, n: number) => void) {
  const r = await startServer((_req, res, n) => answer(res, n));
  opened.push(r);
  return r;
}

function dispatcher(allow = '127.0.0.0/8') {
  const d = guardedDispatcher({ allowHttp: true, allow: parseAllowList(allow) });
  dispatchers.push(d);
  return d;
}

const body = JSON.stringify({ type: 'user.created', timestamp: '2026-12-06T22:00:00Z', data: {} });
const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': '1', 'webhook-signature': 'v1,x' };
const send = (url: string, opts: Partial<Parameters<typeof sendAttempt>[1]> = {}) =>
  sendAttempt({ url, headers, body }, { dispatcher: dispatcher(), ...opts });

describe('sendAttempt', () => {
  it('2xx is delivered; the receiver gets the body and headers as given', async () => {
    const r = await receiver((res) => res.writeHead(204).end());
    const outcome = await send(`${r.origin}/hook`);
    expect(outcome).toMatchObject({ kind: 'delivered', status: 204 });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(0);
    expect(r.seen).toEqual([
      expect.objectContaining({
        method: 'POST',
        url: '/hook',
        body,
        headers: expect.objectContaining({ ...headers, 'content-type': 'application/json' }),
      }),
    ]);
  });

  it('500 fails, with the start of the answer kept', async () => {
    const r = await receiver((res) => res.writeHead(500).end('database down'));
    expect(await send(r.origin)).toMatchObject({
      kind: 'failed',
      status: 500,
      answer: 'database down',
    });
  });

  it('a redirect fails and is never followed', async () => {
    const target = await receiver((res) => res.end('ok'));
    for (const status of [301, 302, 307, 308]) {
      const r = await receiver((res) =>
        res.writeHead(status, { location: `${target.origin}/elsewhere` }).end(),
      );
      const outcome = await send(r.origin);
      expect(outcome).toMatchObject({ kind: 'failed', status });
      expect(outcome.error).toBe(
        `redirected (${status}) to ${target.origin}/elsewhere; redirects are not followed: give the webhook its final URL`,
      );
    }
    expect(target.seen).toEqual([]);
  });

  it('a hostile Location is shown neutralised and cut short', async () => {
    const r = await receiver((res) =>
      res.writeHead(302, { location: `/x\u009b2J${'a'.repeat(500)}` }).end(),
    );
    const outcome = await send(r.origin);
    expect(outcome.error).toMatch(/^redirected \(302\) to \/x\\x9b2Ja+…;/);
    expect(outcome.error!.length).toBeLessThan(300);
  });

  it('410 is gone (the endpoint is to be disabled)', async () => {
    const r = await receiver((res) => res.writeHead(410).end());
    expect(await send(r.origin)).toMatchObject({ kind: 'gone', status: 410 });
  });

  it('429 with Retry-After in seconds, 503 with an HTTP-date (read against the injected clock)', async () => {
    const now = Date.parse('2026-12-06T22:00:00Z');
    const r429 = await receiver((res) => res.writeHead(429, { 'retry-after': '120' }).end());
    expect(await send(r429.origin)).toMatchObject({
      kind: 'failed',
      status: 429,
      retryAfterMs: 120_000,
    });
    const later = new Date(now + 90_000).toUTCString();
    const r503 = await receiver((res) => res.writeHead(503, { 'retry-after': later }).end());
    expect(await send(r503.origin, { now: () => now })).toMatchObject({
      status: 503,
      retryAfterMs: 90_000,
    });
    const past = await receiver((res) =>
      res.writeHead(503, { 'retry-after': new Date(now - 5000).toUTCString() }).end(),
    );
    expect(await send(past.origin, { now: () => now })).toMatchObject({ retryAfterMs: 0 });
  });

  it('Retry-After is read on 429 and 503 only, and not when it is not a number or a date', async () => {
    const r500 = await receiver((res) => res.writeHead(500, { 'retry-after': '10' }).end());
    expect((await send(r500.origin)).retryAfterMs).toBeUndefined();
    const bad = await receiver((res) => res.writeHead(429, { 'retry-after': 'soon' }).end());
    expect((await send(bad.origin)).retryAfterMs).toBeUndefined();
  });

  it('a receiver that never answers fails at the timeout', async () => {
    const r = await receiver(() => {});
    expect(await send(r.origin, { timeoutMs: 200 })).toMatchObject({
      kind: 'failed',
      error: 'no complete answer within 0.2 s',
    });
  });

  it('the timeout covers the whole answer: 200 and then a body that stalls is a failure', async () => {
    const r = await receiver((res) => {
      res.writeHead(200);
      res.write('a');
    });
    const outcome = await send(r.origin, { timeoutMs: 300 });
    expect(outcome).toMatchObject({
      kind: 'failed',
      status: 200,
      error: 'no complete answer within 0.3 s',
    });
  });

  it('an endless answer: at most maxAnswerBytes are read, then the connection is closed', async () => {
    let written = 0;
    let closed: () => void;
    const gone = new Promise<void>((resolve) => {
      closed = resolve;
    });
    const r = await receiver((res) => {
      res.writeHead(500);
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) written += chunk.length;
      };
      res.on('drain', pump);
      res.on('close', () => closed());
      pump();
    });
    const outcome = await send(r.origin, { maxAnswerBytes: 1000 });
    expect(outcome).toMatchObject({ kind: 'failed', status: 500 });
    expect(outcome.answer).toHaveLength(1000);
    await gone;
    expect(written).toBeLessThan(16 * 1024 * 1024);
  });

  it('a refused address and a refused connection fail with what happened', async () => {
    const r = await receiver((res) => res.end());
    const refused = await sendAttempt(
      { url: r.origin, headers, body },
      { dispatcher: dispatcher('10.0.0.0/8') },
    );
    expect(refused).toMatchObject({
      kind: 'failed',
      error: expect.stringMatching(/^refused to deliver: 127\.0\.0\.1 is a loopback/),
    });
    const port = await freePort();
    expect(await send(`http://127.0.0.1:${port}/`)).toMatchObject({
      kind: 'failed',
      error: `connection refused by 127.0.0.1:${port}`,
    });
  });
});
