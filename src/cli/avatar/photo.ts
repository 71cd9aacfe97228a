/**
 * Reads a photo for the avatar pipeline: refuses what is empty or too big before reading it,
 * hashes its bytes (the hash names the media, so an unchanged photo is never sent twice), and
 * hands formats sharp's prebuilt libvips cannot decode — HEIC (HEVC) and BMP — to the programs
 * the service's previews already use (heif-convert, ffmpeg), hardened the same way.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { access, constants, open, stat } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import sharp from 'sharp';
import { tempDir } from '../temp-dir.js';
import { PhotoError } from './errors.js';

/** A phone photo is 2–15 MB; a camera RAW-sized TIFF may be more. Beyond this, refuse unread. */
export const MAX_PHOTO_BYTES = 64 * 1024 * 1024;
/** 100 megapixels (a 48-MP phone photo fits; a 30000² decompression bomb does not). */
export const MAX_PHOTO_PIXELS = 100_000_000;
/** The extensions a photo folder is searched for (any case). */
export const PHOTO_EXTENSIONS = [
  '.jpg',
  '.jpeg',
  '.png',
  '.gif',
  '.webp',
  '.tif',
  '.tiff',
  '.bmp',
  '.heic',
  '.heif',
] as const;

export interface Photo {
  /** The first 16 hex digits of the file's SHA-256. */
  hash: string;
  /** What sharp reads: the file itself, or its decoded copy. */
  readable: string;
  /** Removes the decoded copy, if any. */
  dispose(): Promise<void>;
}

/** The first 16 hex digits of the file's SHA-256: what names its avatar media. */
export async function hashPhoto(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex').slice(0, 16);
}

async function head(path: string, n: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buf = Buffer.alloc(n);
    const { bytesRead } = await handle.read(buf, 0, n, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** `name` as the env names it, or found on PATH; undefined when it is nowhere. */
async function program(name: string, envVar: string, env: NodeJS.ProcessEnv) {
  if (env[envVar]) return env[envVar];
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const ok = await access(join(dir, name), constants.X_OK).then(
      () => true,
      () => false,
    );
    if (ok) return join(dir, name);
  }
  return undefined;
}

type Kind = 'heic' | 'bmp' | 'sharp';

async function kindOf(path: string): Promise<Kind> {
  const bytes = await head(path, 2);
  if (bytes.toString('latin1') === 'BM') return 'bmp';
  // The header alone; an HEIF holding HEVC (not AV1, which sharp decodes) goes to heif-convert.
  const meta = await sharp(path, { limitInputPixels: false })
    .metadata()
    .catch(() => undefined);
  return meta?.format === 'heif' && meta.compression === 'hevc' ? 'heic' : 'sharp';
}

const DECODERS = {
  heic: {
    program: ['heif-convert', 'HEIF_CONVERT_PATH'],
    hint: 'HEIC photos need heif-convert: install libheif-examples (Debian, Ubuntu) or libheif (Homebrew), or set HEIF_CONVERT_PATH; or convert the photo to JPEG',
    load: async () => (await import('../../images/heic.js')).decodeHeic,
  },
  bmp: {
    program: ['ffmpeg', 'FFMPEG_PATH'],
    hint: 'BMP photos need ffmpeg (and ffprobe) on PATH (or FFMPEG_PATH/FFPROBE_PATH); or convert the photo to PNG',
    load: async () => (await import('../../images/bitmap.js')).decodeBitmap,
  },
} as const;

/**
 * Opens `path` as a photo, or throws a PhotoError naming it: empty, over MAX_PHOTO_BYTES, or a
 * HEIC/BMP whose decoder is missing or fails. (Whether sharp can read the rest is found out
 * when it renders.)
 */
export async function openPhoto(
  path: string,
  env: NodeJS.ProcessEnv = process.env,
  knownHash?: string,
  timeoutMs = 60_000,
): Promise<Photo> {
  const info = await stat(path).catch((err: NodeJS.ErrnoException) => {
    throw new PhotoError(path, 'broken', `cannot be read (${err.code ?? err.message})`);
  });
  if (!info.isFile()) throw new PhotoError(path, 'broken', 'is not a regular file');
  if (info.size === 0) throw new PhotoError(path, 'empty', 'is empty');
  if (info.size > MAX_PHOTO_BYTES) {
    const mb = (n: number) => `${Math.round(n / 1024 / 1024)} MiB`;
    throw new PhotoError(
      path,
      'too-large',
      `is ${mb(info.size)}, over the ${mb(MAX_PHOTO_BYTES)} a photo may have: export it smaller (a long edge of 2048 px is all an avatar keeps)`,
    );
  }
  const [hash, kind] = await Promise.all([knownHash ?? hashPhoto(path), kindOf(path)]);
  if (kind === 'sharp') return { hash, readable: path, dispose: async () => {} };

  const decoder = DECODERS[kind];
  const [name, envVar] = decoder.program;
  if (!(await program(name, envVar, env))) throw new PhotoError(path, 'no-decoder', decoder.hint);
  const { dir: scratch, dispose } = await tempDir('roster-photo-');
  try {
    const readable = await (await decoder.load())(path, scratch, timeoutMs);
    return { hash, readable, dispose };
  } catch (err) {
    await dispose();
    const why = err instanceof Error ? err.message : String(err);
    const problem = /pixel limit/.test(why) ? 'too-many-pixels' : 'broken';
    throw new PhotoError(path, problem, `could not be decoded as ${kind.toUpperCase()} (${why})`);
  }
}
