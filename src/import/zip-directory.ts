/**
 * A zip archive's central directory, read from the end of the file without inflating anything:
 * each entry's name, method, flags, sizes and where its data starts. The workbook guard
 * (xlsx-guard.ts) judges a workbook by it before any XML parser sees a byte.
 */
import { open } from 'node:fs/promises';

export interface ZipEntry {
  name: string;
  method: number;
  /** General-purpose flags; bit 0 = encrypted. */
  flags: number;
  compressed: number;
  uncompressed: number;
  /** Offset of the entry's local header. */
  offset: number;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MAX32 = 0xffffffff;

export class ZipFormatError extends Error {}

async function readAt(fd: import('node:fs/promises').FileHandle, position: number, length: number) {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await fd.read(buf, 0, length, position);
  return buf.subarray(0, bytesRead);
}

const u64 = (buf: Buffer, at: number) => Number(buf.readBigUInt64LE(at));

/** The entries of the archive, at most `maxEntries` (more is refused: a guard, not a reader). */
export async function readZipDirectory(file: string, maxEntries: number): Promise<ZipEntry[]> {
  const fd = await open(file, 'r');
  try {
    const { size } = await fd.stat();
    const tailLength = Math.min(size, 22 + 0xffff);
    const tail = await readAt(fd, size - tailLength, tailLength);
    let at = -1;
    for (let i = tail.length - 22; i >= 0; i--) {
      if (tail.readUInt32LE(i) === EOCD) {
        at = i;
        break;
      }
    }
    if (at < 0) throw new ZipFormatError('no end of central directory (a truncated download?)');
    let count = tail.readUInt16LE(at + 10);
    let dirSize = tail.readUInt32LE(at + 12);
    let dirOffset = tail.readUInt32LE(at + 16);
    if (count === 0xffff || dirSize === MAX32 || dirOffset === MAX32) {
      const locator = at - 20;
      if (locator < 0 || tail.readUInt32LE(locator) !== ZIP64_LOCATOR) {
        throw new ZipFormatError('a zip64 archive without its locator');
      }
      const record = await readAt(fd, u64(tail, locator + 8), 56);
      if (record.length < 56 || record.readUInt32LE(0) !== ZIP64_EOCD) {
        throw new ZipFormatError('a zip64 archive without its directory record');
      }
      count = u64(record, 32);
      dirSize = u64(record, 40);
      dirOffset = u64(record, 48);
    }
    if (count > maxEntries) throw new ZipFormatError(`${count} entries (at most ${maxEntries})`);
    if (dirOffset + dirSize > size || dirSize > 64 * maxEntries + (4 << 20)) {
      throw new ZipFormatError('its central directory lies outside the file');
    }
    const dir = await readAt(fd, dirOffset, dirSize);
    const entries: ZipEntry[] = [];
    let p = 0;
    for (let n = 0; n < count; n++) {
      if (p + 46 > dir.length || dir.readUInt32LE(p) !== CENTRAL) {
        throw new ZipFormatError('a damaged central directory');
      }
      const nameLength = dir.readUInt16LE(p + 28);
      const extraLength = dir.readUInt16LE(p + 30);
      const commentLength = dir.readUInt16LE(p + 32);
      const entry: ZipEntry = {
        name: dir.toString('utf8', p + 46, p + 46 + nameLength),
        flags: dir.readUInt16LE(p + 8),
        method: dir.readUInt16LE(p + 10),
        compressed: dir.readUInt32LE(p + 20),
        uncompressed: dir.readUInt32LE(p + 24),
        offset: dir.readUInt32LE(p + 42),
      };
      // Zip64: the fields set to 0xFFFFFFFF are in the extra field 0x0001, in this order.
      let x = p + 46 + nameLength;
      const end = x + extraLength;
      while (x + 4 <= end) {
        const id = dir.readUInt16LE(x);
        const length = dir.readUInt16LE(x + 2);
        if (id === 1) {
          let q = x + 4;
          for (const key of ['uncompressed', 'compressed', 'offset'] as const) {
            if (entry[key] === MAX32 && q + 8 <= x + 4 + length) {
              entry[key] = u64(dir, q);
              q += 8;
            }
          }
        }
        x += 4 + length;
      }
      entries.push(entry);
      p = end + commentLength;
    }
    return entries;
  } finally {
    await fd.close();
  }
}

/** Where an entry's compressed data starts (after its local header). */
export async function dataOffset(file: string, entry: ZipEntry): Promise<number> {
  const fd = await open(file, 'r');
  try {
    const head = await readAt(fd, entry.offset, 30);
    if (head.length < 30 || head.readUInt32LE(0) !== LOCAL) {
      throw new ZipFormatError(`${entry.name}: no local header where the directory says`);
    }
    return entry.offset + 30 + head.readUInt16LE(26) + head.readUInt16LE(28);
  } finally {
    await fd.close();
  }
}
