/** Request bodies: which can be sent again on a retry, and the one opened for an attempt. */
import { Readable } from 'node:stream';
import type { RawBody } from './types.js';

function isBytes(body: unknown): body is string | Uint8Array {
  return typeof body === 'string' || body instanceof Uint8Array;
}

/**
 * Whether a body can be sent only once (a stream, not bytes or a factory of fresh streams):
 * such a request is not repeated once its body began to be read.
 */
export function isOneShot(payload: RawBody | undefined): boolean {
  return payload !== undefined && typeof payload === 'object' && !isBytes(payload);
}

/** The body for one attempt; streams are wrapped so the first read is noticed. */
export function openBody(payload: RawBody | undefined, onStart: () => void) {
  if (payload === undefined || isBytes(payload)) return payload;
  const source = typeof payload === 'function' ? payload() : payload;
  async function* watched() {
    onStart();
    yield* source;
  }
  return Readable.from(watched(), { objectMode: false });
}
