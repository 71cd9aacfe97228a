/**
 * A webhook receiver on a real loopback port (node:http): it keeps every request's headers and
 * raw body, answers as the test says, and lets a test wait for a request without sleeping.
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

export type Answer = (req: IncomingMessage, res: ServerResponse, body: string) => void;

const ok: Answer = (_req, res) => res.writeHead(204).end();

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** How the next requests are answered (default 204). */
  answer(fn: Answer): void;
  /** Resolves with the first request (already in or to come) that `match` accepts. */
  next(match?: (r: Received) => boolean): Promise<Received>;
  /** Stops listening (and drops the connections it holds). */
  close(): Promise<void>;
}

/** The standardwebhooks package's headers from a request's. */
export const signedHeaders = (h: IncomingHttpHeaders): Record<string, string> => ({
  'webhook-id': String(h['webhook-id']),
  'webhook-timestamp': String(h['webhook-timestamp']),
  'webhook-signature': String(h['webhook-signature']),
});

export async function startReceiver(port = 0): Promise<Receiver> {
  let answer = ok;
  const received: Received[] = [];
  const waiters: { match: (r: Received) => boolean; resolve: (r: Received) => void }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(r);
      answer(req, res, r.body);
      for (const w of waiters.filter((w) => w.match(r))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(r);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    received,
    answer(fn) {
      answer = fn;
    },
    next(match = () => true) {
      const found = received.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
