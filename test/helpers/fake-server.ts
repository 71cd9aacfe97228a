/**
 * Small real HTTP servers on 127.0.0.1 that answer as a test says (a misbehaving service, a CDN,
 * a proxy's target): for the client tests and for the CLI end to end.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface FakeServer {
  /** The base URL, ending with /api. */
  baseUrl: string;
  origin: string;
  seen: Seen[];
  /** TCP connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

type Handler = (
  req: IncomingMessage,
  res: ServerResponse,
  n: number,
  body: string,
) => void | Promise<void>;

/**
 * Starts a server; the handler gets the request number (1-based) and, unless raw, the body.
 * `seen` lists the requests that arrived.
 */
export async function startServer(handler: Handler, opts: { raw?: boolean } = {}) {
  const seen: Seen[] = [];
  const server = createServer(async (req, res) => {
    let body = '';
    if (!opts.raw) for await (const chunk of req) body += chunk;
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
    await handler(req, res, seen.length, body);
  });
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    baseUrl: `${origin}/api`,
    origin,
    seen,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  } satisfies FakeServer;
}

/** A JSON answer as the service would send it. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

/**
 * A loopback port nothing listens on: bound once, then released. A connection to it is refused;
 * a server started next can bind it (replicas that must come back on the same port).
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A base URL already known to have no catalog (GET /api): the client sends its built-in choices
 * at once, so a test sees only the requests it is about.
 */
export const knownServer = {
  load: () => ({ catalog: false }),
  save: () => {},
};

/** An empty page of users, in the users.v2 list shape. */
export const EMPTY_PAGE = { total: 0, limit: 100, offset: 0, data: [] };
