/**
 * A proxy in front of a test server that holds one chosen request, so a test can interrupt a
 * client at an exact point instead of racing a timer: the Nth request that `matches` waits
 * until `release()` (or is lost with the whole proxy: `die()`, the service going away).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { request } from 'undici';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'upgrade']);

export interface HoldProxy {
  url: string;
  /** Resolves when the held request has arrived (and is waiting). */
  held: Promise<void>;
  /** Sends the held request on; the client gets the service's answer. */
  release(): void;
  /**
   * The service dies with the held request: it is sent on and committed, but its answer never
   * reaches the client, and every connection drops. `revive()` listens again on the same port.
   */
  die(): Promise<void>;
  revive(): Promise<void>;
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export async function holdProxy(
  target: string,
  matches: (req: IncomingMessage) => boolean,
  n: number,
): Promise<HoldProxy> {
  let count = 0;
  let arrived!: () => void;
  const held = new Promise<void>((r) => {
    arrived = r;
  });
  let release!: () => void;
  const released = new Promise<void>((r) => {
    release = r;
  });
  let dying = false;
  let answered!: () => void;
  const heldAnswered = new Promise<void>((r) => {
    answered = r;
  });
  const sockets = new Set<Socket>();

  const handler = async (req: IncomingMessage, res: import('node:http').ServerResponse) => {
    const payload = await body(req);
    const isHeld = matches(req) && ++count === n;
    if (isHeld) {
      arrived();
      await released;
    }
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([k]) => !HOP_BY_HOP.has(k)),
    ) as Record<string, string>;
    const up = await request(`${target}${req.url}`, {
      method: req.method as 'GET',
      headers,
      body: payload.length > 0 ? payload : undefined,
    });
    const answer = Buffer.from(await up.body.arrayBuffer());
    if (isHeld && dying) {
      answered();
      return; // the connection is dropped by die()
    }
    const out = Object.fromEntries(
      Object.entries(up.headers).filter(([k]) => !HOP_BY_HOP.has(k) && k !== 'content-length'),
    );
    res.writeHead(up.statusCode, out);
    res.end(answer);
  };

  let server: Server;
  const listen = (port: number) =>
    new Promise<number>((resolve) => {
      server = createServer((req, res) => {
        handler(req, res).catch(() => res.destroy());
      });
      server.on('connection', (s) => {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
      });
      server.listen(port, '127.0.0.1', () => {
        resolve((server.address() as { port: number }).port);
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    });

  const port = await listen(0);
  return {
    url: `http://127.0.0.1:${port}`,
    held,
    release,
    async die() {
      dying = true;
      release();
      await heldAnswered;
      await stop();
    },
    async revive() {
      await listen(port);
    },
    close: stop,
  };
}
