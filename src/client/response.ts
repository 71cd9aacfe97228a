/** Reading answers: JSON bodies, and error answers mapped to ApiError / ResponseFormatError. */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { isErrorEnvelope, OUTCOME_HEADER } from '../contract/errors.js';
import { ApiError, ResponseFormatError } from './errors.js';
import { parseRetryAfter } from './retry.js';

/** Error pages can be large; the envelope never is. */
const ERROR_BODY_LIMIT = 64 * 1024;
/**
 * The most a JSON answer may hold (CONTRACT): a 1,000-user page stays far below it, so anything
 * larger is a broken or hostile server, and reading on would only exhaust memory.
 */
export const JSON_BODY_LIMIT = 64 * 1024 * 1024;

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Readable;
}

export function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** `application/json` and every `application/…+json` (the versioned media types). */
export function isJsonType(contentType: string | undefined): boolean {
  const type = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  return /^application\/([\w.+-]+\+)?json$/.test(type);
}

/**
 * The body as text, read up to `limit` bytes. Past it the rest is not read: `undefined`, without
 * joining what was read (a hostile answer must not cost memory twice), or with `truncate` the
 * text of the first bytes (enough to show an error page's title).
 */
async function readText(body: Readable, limit: number): Promise<string | undefined>;
async function readText(body: Readable, limit: number, truncate: true): Promise<string>;
async function readText(body: Readable, limit: number, truncate = false) {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    size += buf.length;
    if (size > limit) {
      body.destroy();
      if (!truncate) return undefined;
      chunks.push(buf.subarray(0, buf.length - (size - limit)));
      break;
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function htmlTitle(text: string): string | undefined {
  const match = /<title[^>]*>([^<]{1,120})<\/title>/i.exec(text);
  return match?.[1]?.trim() || undefined;
}

/** The typed error for an answer with status ≥ 400. Consumes the body. */
export async function errorFromAnswer(
  answer: Answer,
  method: string,
  url: string,
): Promise<ApiError | ResponseFormatError> {
  const contentType = header(answer.headers, 'content-type');
  const text = await readText(answer.body, ERROR_BODY_LIMIT, true).catch(() => '');
  const retryAfterMs = parseRetryAfter(header(answer.headers, 'retry-after'));
  const outcomeUnknown = header(answer.headers, OUTCOME_HEADER) === 'unknown';
  const base = { status: answer.status, method, url, retryAfterMs, outcomeUnknown };
  if (isJsonType(contentType)) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (isErrorEnvelope(parsed)) return new ApiError({ ...base, envelope: parsed });
    } catch {
      // Not parseable: still an error status from something speaking JSON; report the status.
    }
    return new ApiError(base);
  }
  // An empty error body (e.g. a bare 503 from a load balancer) is still the status.
  if (text.trim() === '') return new ApiError(base);
  return new ResponseFormatError({ ...base, contentType, title: htmlTitle(text) });
}

/** Reads a body of at most `limit` bytes; a larger one (declared or sent) is an error. */
async function readCapped(answer: Answer, method: string, url: string, limit: number) {
  const tooLarge = () =>
    new ResponseFormatError({
      status: answer.status,
      method,
      url,
      contentType: header(answer.headers, 'content-type'),
      problem: `an answer larger than ${limit / 1024 / 1024} MiB, which no valid answer is`,
    });
  if (Number(header(answer.headers, 'content-length')) > limit) {
    answer.body.destroy();
    throw tooLarge();
  }
  const text = await readText(answer.body, limit);
  if (text === undefined) throw tooLarge();
  return text;
}

/** Parses a success answer's JSON body; `undefined` for 202/204 or an empty body. */
export async function readJson<T>(answer: Answer, method: string, url: string): Promise<T> {
  const contentType = header(answer.headers, 'content-type');
  const text = await readCapped(answer, method, url, JSON_BODY_LIMIT);
  const location = header(answer.headers, 'location');
  if (answer.status >= 300 && location) {
    // Typically http:// redirected to https://, or a path missing /api: the fix is the base URL.
    const problem = `a redirect to ${location}`;
    throw new ResponseFormatError({ status: answer.status, method, url, contentType, problem });
  }
  if (text.trim() === '') return undefined as T;
  if (!isJsonType(contentType)) {
    throw new ResponseFormatError({
      status: answer.status,
      method,
      url,
      contentType,
      title: htmlTitle(text),
    });
  }
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ResponseFormatError({
      status: answer.status,
      method,
      url,
      contentType,
      problem: `a ${contentType} body that is not valid JSON`,
    });
  }
}
