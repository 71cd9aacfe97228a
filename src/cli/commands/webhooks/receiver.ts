/**
 * The HTTP side of `roster webhooks listen`: takes each POST's raw bytes (at most
 * MAX_DELIVERY_BYTES), verifies the signature and timestamp over exactly those bytes — before
 * any JSON parsing, which would change them — and only then parses. Valid: 204. Not: 401 (or
 * 413, 405, 400) and the reason handed to `onRefused` for stderr. Nothing from the sender is
 * trusted: it may be anyone who can reach the port.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { verifySignature } from '../../../contract/webhook-signature.js';

/** Far above any event (a few KB); a local receiver should not buffer what a stranger sends. */
export const MAX_DELIVERY_BYTES = 1024 * 1024;
/** Past this much more, the sender is not draining a mistake but flooding: the socket goes. */
const MAX_DRAINED_BYTES = 8 * MAX_DELIVERY_BYTES;

export interface Delivery {
  id: string;
  body: unknown;
}

export interface ReceiverOptions {
  secrets: readonly string[];
  /** Answered 204 once it is done (a slow stdout slows the answers, never drops a line). */
  onDelivery: (delivery: Delivery) => void | Promise<void>;
  onRefused: (status: number, reason: string, req: IncomingMessage) => void;
  maxBytes?: number;
  nowSeconds?: () => number;
}

async function readCapped(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size <= max) chunks.push(chunk as Buffer);
    else if (size > max + MAX_DRAINED_BYTES) {
      req.destroy();
      return undefined;
    }
  }
  return size <= max ? Buffer.concat(chunks) : undefined;
}

export function createReceiver(opts: ReceiverOptions): Server {
  const max = opts.maxBytes ?? MAX_DELIVERY_BYTES;
  const nowSeconds = opts.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
  return createServer(async (req, res) => {
    const refuse = (status: number, reason: string, headers: Record<string, string> = {}) => {
      opts.onRefused(status, reason, req);
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
      res.end(`${reason}\n`);
    };
    if (req.method !== 'POST') {
      req.resume();
      return refuse(405, `a ${req.method} is not a delivery (deliveries are POSTs)`, {
        allow: 'POST',
      });
    }
    const raw = await readCapped(req, max).catch(() => undefined);
    if (!raw) {
      if (!res.destroyed) refuse(413, `a body of more than ${max} bytes is not a delivery`);
      return;
    }
    const verdict = verifySignature({
      secrets: opts.secrets,
      headers: req.headers,
      body: raw,
      nowSeconds: nowSeconds(),
    });
    if (!verdict.ok) return refuse(401, verdict.reason);
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return refuse(400, 'the signature is valid but the body is not JSON');
    }
    await opts.onDelivery({ id: String(req.headers['webhook-id']), body });
    res.writeHead(204).end();
  });
}
