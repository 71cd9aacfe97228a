/**
 * One delivery attempt: a POST to the receiver and what came of it. The receiver is a stranger's
 * server, so nothing it sends is trusted: redirects are failures, never followed (a follow would
 * reach an address the egress guard never saw at POST time, and a receiver that moved should be
 * given its new URL); at most `maxAnswerBytes` of any answer are read, then the connection is
 * dropped (a 1 GB answer costs a few KB); the timeout covers the whole answer, so a receiver
 * that sends headers and then trickles cannot hold a worker.
 */
import { type Dispatcher, request } from 'undici';
import { safeText } from '../../contract/text-safe.js';

export interface AttemptRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface AttemptOptions {
  /** The guarded dispatcher (egress.ts). */
  dispatcher: Dispatcher;
  timeoutMs?: number;
  maxAnswerBytes?: number;
  /** Wall-clock milliseconds, for an HTTP-date Retry-After and the duration. */
  now?: () => number;
}

export interface AttemptOutcome {
  /** delivered: 2xx in time · gone: 410, the endpoint is to be disabled · failed: the rest. */
  kind: 'delivered' | 'failed' | 'gone';
  status?: number;
  /** What went wrong when no status says it (timeout, refused, redirect), in words. */
  error?: string;
  /** The start of the answer (≤ maxAnswerBytes, controls neutralised), for the history. */
  answer?: string;
  /** The receiver's Retry-After on a 429 or 503, in ms from now. */
  retryAfterMs?: number;
  durationMs: number;
}

const TIMEOUT = Symbol('timeout');
const MAX_SHOWN = 200;
const cut = (s: string) => safeText(s.length > MAX_SHOWN ? `${s.slice(0, MAX_SHOWN)}…` : s);

/** Seconds (`120`) or an HTTP-date, as ms from `now`; undefined when it is neither. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  const at = /[a-z]/i.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Reads at most `max` bytes of a body, then destroys it (and so the connection, if unfinished). */
async function readAtMost(body: Dispatcher.ResponseData['body'], max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = chunk as Buffer;
    chunks.push(buf.subarray(0, max - size));
    size += Math.min(buf.length, max - size);
    if (size >= max) break; // leaving the loop destroys the body before it ends
  }
  return Buffer.concat(chunks).toString('utf8');
}

function describeError(err: unknown, url: URL, timeoutMs: number): string {
  if (err === TIMEOUT) return `no complete answer within ${timeoutMs / 1000} s`;
  const e = err as { code?: string; name?: string; message?: string };
  const where = `${url.hostname.replace(/^\[|\]$/g, '')}:${url.port || (url.protocol === 'https:' ? 443 : 80)}`;
  if (e.name === 'EgressRefusedError') return e.message ?? 'refused by the egress guard';
  if (e.code === 'ECONNREFUSED') return `connection refused by ${where}`;
  if (e.code === 'ENOTFOUND') return `${cut(url.hostname)} does not resolve (DNS)`;
  if (e.code === 'ECONNRESET' || e.code === 'UND_ERR_SOCKET')
    return `connection closed by ${where}`;
  return cut(`${e.code ? `${e.code}: ` : ''}${e.message ?? String(err)}`);
}

/** Sends one attempt; never throws for anything the receiver or the network does. */
export async function sendAttempt(
  req: AttemptRequest,
  opts: AttemptOptions,
): Promise<AttemptOutcome> {
  const { dispatcher, timeoutMs = 15_000, maxAnswerBytes = 4096, now = Date.now } = opts;
  const started = now();
  const duration = () => Math.max(0, now() - started);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(TIMEOUT), timeoutMs);
  const url = new URL(req.url);
  let status: number | undefined;
  try {
    const answer = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...req.headers },
      body: req.body,
      dispatcher,
      signal: controller.signal,
    });
    status = answer.statusCode;
    const text = await readAtMost(answer.body, maxAnswerBytes);
    const shown = text === '' ? {} : { answer: safeText(text) };
    const durationMs = duration();
    if (status >= 200 && status < 300) return { kind: 'delivered', status, ...shown, durationMs };
    if (status === 410) return { kind: 'gone', status, ...shown, durationMs };
    if (status >= 300 && status < 400) {
      const location = answer.headers.location;
      const to = typeof location === 'string' ? ` to ${cut(location)}` : '';
      const error = `redirected (${status})${to}; redirects are not followed: give the webhook its final URL`;
      return { kind: 'failed', status, error, durationMs };
    }
    const retryHeader = answer.headers['retry-after'];
    const retryAfterMs =
      status === 429 || status === 503
        ? parseRetryAfter(typeof retryHeader === 'string' ? retryHeader : undefined, now())
        : undefined;
    return {
      kind: 'failed',
      status,
      ...shown,
      ...(retryAfterMs !== undefined && { retryAfterMs }),
      durationMs,
    };
  } catch (err) {
    const reason = controller.signal.aborted ? TIMEOUT : err;
    return {
      kind: 'failed',
      ...(status !== undefined && { status }),
      error: describeError(reason, url, timeoutMs),
      durationMs: duration(),
    };
  } finally {
    clearTimeout(timer);
  }
}
