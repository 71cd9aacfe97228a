import { randomBytes } from 'node:crypto';

/** A per-process random part and counter, as in MongoDB's ObjectId. */
const processPart = randomBytes(5);
let counter = randomBytes(3).readUIntBE(0, 3);

/**
 * A 24-hex objectId: 4 bytes of seconds since the epoch, 5 random bytes, a 3-byte counter.
 * Ids sort by creation time, which GET /media's "newest first" relies on.
 */
export function newObjectId(now = Date.now()): string {
  const buf = Buffer.alloc(12);
  buf.writeUInt32BE(Math.floor(now / 1000) >>> 0, 0);
  processPart.copy(buf, 4);
  counter = (counter + 1) % 0x1000000;
  buf.writeUIntBE(counter, 9, 3);
  return buf.toString('hex');
}

export const OBJECT_ID = /^[0-9a-f]{24}$/;
