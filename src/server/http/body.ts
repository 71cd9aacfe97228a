/**
 * Request bodies for the JSON endpoints: read whole (they are small), capped at a limit, then
 * parsed by encoding. Form encodings use dotted keys (`profile.firstName=Ann`) and come out as
 * the same nested object a JSON body would be.
 *
 * Multipart bodies go through @fastify/busboy (server/multipart.ts, shared with media uploads),
 * the maintained fork the contract names. It replaced busboy 1.x (last release 2022), which had
 * been kept because the fork passes raw control bytes in part headers on where 1.x refused the
 * body: multipart.ts now refuses those itself (400 "malformed multipart body"), before any part
 * reaches us, and reports filename="" as a field as 1.x did.
 */
import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import { isForbiddenKey } from '../../contract/safe-keys.js';
import { AppError } from '../errors.js';
import { type MultipartParser, multipartParser } from '../multipart.js';

export const MAX_JSON_BYTES = 1024 * 1024;
/** A JSON or form body must be complete this long after the request began (CONTRACT: 408). */
export const DEFAULT_BODY_TIMEOUT_MS = 10_000;

/**
 * What is left of a refused body is read and thrown away for a little while (8 MiB, 5 s), so a
 * client still sending sees the answer instead of a reset; past that the connection is cut.
 * Never drained to its end: a client may not push gigabytes at a server that said no.
 */
export function discardRest(req: IncomingMessage, maxBytes = 8 * 1024 * 1024, maxMs = 5000) {
  if (req.complete || req.destroyed) return;
  let seen = 0;
  const cut = () => req.socket?.destroy();
  const timer = setTimeout(cut, maxMs).unref();
  req.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > maxBytes) cut();
  });
  req.once('close', () => clearTimeout(timer));
  req.on('error', () => {});
  req.resume();
}

const tooLarge = (limit: number) =>
  new AppError('payloadTooLarge', `the request body is larger than ${limit} bytes`);

/**
 * Reads a whole body of at most `limit` bytes that must be complete within the request's body
 * deadline (ctx.state.bodyTimeoutMs). A stalled or trickled body is answered 408 on a closed
 * connection, and a body over the limit 413 with the rest discarded only briefly (error
 * middleware): reading on would let one client hold a socket, or push gigabytes, at will.
 */
export function readRawBody(ctx: Context, limit = MAX_JSON_BYTES): Promise<Buffer> {
  const req = ctx.req;
  const declared = Number(ctx.get('Content-Length'));
  if (declared > limit) return Promise.reject(tooLarge(limit));
  const timeoutMs: number = ctx.state.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  // Gone before its body was read (a slow auth on PostgreSQL leaves time for that): its 'error'
  // has been emitted already, and waiting would hold the request until the body timeout.
  if (req.destroyed && !req.complete) {
    return Promise.reject(new AppError('validation', 'the client aborted the request'));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (err?: AppError) => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', onError);
      if (!err) return resolve(Buffer.concat(chunks));
      req.pause();
      reject(err);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) finish(tooLarge(limit));
      else chunks.push(chunk);
    };
    const onEnd = () => finish();
    const onError = () => finish(new AppError('validation', 'the client aborted the request'));
    const timer = setTimeout(
      () =>
        finish(
          new AppError(
            'requestTimeout',
            `the request body was not complete within ${timeoutMs / 1000} s; send it at once`,
          ),
        ),
      timeoutMs,
    );
    req.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

export async function readJsonBody(ctx: Context): Promise<unknown> {
  const raw = await readRawBody(ctx);
  if (raw.length === 0)
    throw new AppError('validation', 'the request body is empty; send a JSON object');
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new AppError(
      'validation',
      `the request body is not valid JSON: ${(err as Error).message}`,
      [{ field: '(body)', message: 'is not valid JSON' }],
    );
  }
}

/** Form values are strings: coerce the few typed fields, and '' clears a field. */
const COERCE: Record<string, (v: string) => unknown> = {
  'recoveryCode.expires': (v) => (/^\d+$/.test(v) ? Number(v) : v),
};

export function dottedToObject(entries: Iterable<[string, string]>): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, raw] of entries) {
    const path = key.split('.');
    if (path.some((p) => p === '' || isForbiddenKey(p))) {
      throw new AppError('validation', `invalid form field name '${key}'`, [
        { field: key, message: 'is not a valid field path' },
      ]);
    }
    const value = raw === '' ? null : (COERCE[key]?.(raw) ?? raw);
    let node = root;
    for (const part of path.slice(0, -1)) {
      // Own properties only: `profile.toString` is a field name, not Object.prototype's.
      const next = Object.hasOwn(node, part) ? node[part] : undefined;
      if (next !== undefined && (typeof next !== 'object' || next === null)) {
        throw new AppError('validation', `form field '${key}' conflicts with '${part}'`, [
          { field: key, message: `conflicts with '${part}'` },
        ]);
      }
      if (next === undefined) node[part] = {};
      node = node[part] as Record<string, unknown>;
    }
    const leaf = path.at(-1)!;
    if (Object.hasOwn(node, leaf)) {
      throw new AppError('validation', `form field '${key}' is given twice`, [
        { field: key, message: 'is given twice' },
      ]);
    }
    node[leaf] = value;
  }
  return root;
}

export async function readFormBody(ctx: Context): Promise<Record<string, unknown>> {
  const raw = await readRawBody(ctx);
  if (ctx.is('application/x-www-form-urlencoded')) {
    return dottedToObject(new URLSearchParams(raw.toString('utf8')));
  }
  return dottedToObject(await multipartFields(ctx.get('Content-Type'), raw));
}

function multipartFields(contentType: string, raw: Buffer): Promise<[string, string][]> {
  return new Promise((resolve, reject) => {
    const fields: [string, string][] = [];
    let parser: MultipartParser;
    try {
      parser = multipartParser({
        headers: { 'content-type': contentType },
        // Limits count as exceeded: 200 parts pass, the 201st is refused.
        limits: { files: 0, fields: 200, fieldSize: 64 * 1024, parts: 200 },
      });
    } catch (err) {
      reject(new AppError('validation', `malformed multipart body: ${(err as Error).message}`));
      return;
    }
    const fail = (message: string) => reject(new AppError('validation', message));
    parser.on('field', (name, value, _nameTruncated, valueTruncated) => {
      if (valueTruncated) fail(`form field '${name}' is longer than 64 KiB`);
      fields.push([name, value]);
    });
    parser.on('filesLimit', () => fail('file parts are not accepted here; send form fields only'));
    parser.on('fieldsLimit', () => fail('too many form fields (at most 200)'));
    parser.on('partsLimit', () => fail('too many form parts (at most 200)'));
    parser.on('error', (err) => fail(`malformed multipart body: ${(err as Error).message}`));
    parser.on('finish', () => resolve(fields));
    parser.end(raw);
  });
}
