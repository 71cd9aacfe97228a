/**
 * Photos that carry what a phone writes into them: EXIF with a GPS position, the camera's make
 * and body serial number, and XMP naming the position again; made with sharp (and heif-enc for
 * the HEIC, as an iPhone's), small so the tests stay cheap. `leaks` says what of it a file
 * still holds, read as a recipient would: sharp's metadata and the raw bytes.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp, { type Sharp } from 'sharp';

export const SERIAL = 'SN-4711-0815';
const EXIF = {
  IFD0: { Make: 'Phonecam', Model: 'P1' },
  IFD2: { BodySerialNumber: SERIAL },
  IFD3: {
    GPSLatitudeRef: 'N',
    GPSLatitude: '52/1 31/1 12/1',
    GPSLongitudeRef: 'E',
    GPSLongitude: '13/1 24/1 36/1',
  },
};
const XMP =
  '<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">' +
  '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description ' +
  'xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:GPSLatitude="52,31.2N" ' +
  'exif:GPSLongitude="13,24.6E"/></rdf:RDF></x:xmpmeta><?xpacket end="w"?>';

/** 96×64, red on its left half: a test can see the image survived. */
const picture = () =>
  sharp({ create: { width: 96, height: 64, channels: 3, background: '#2050c0' } }).composite([
    {
      input: {
        create: { width: 48, height: 64, channels: 3, background: '#ff0000' },
      },
      left: 0,
      top: 0,
    },
  ]);

type Format = 'jpeg' | 'png' | 'webp' | 'tiff' | 'avif';

/** The picture as `format` with EXIF (not in TIFF: libvips writes none there) and XMP. */
export const withMetadata = (format: Format, extra: (s: Sharp) => Sharp = (s) => s) =>
  extra(picture()[format]().withExif(EXIF).withXmp(XMP)).toBuffer();

/** The picture with XMP only (GPS named in it), as an editor's export may be. */
export const withXmpOnly = () => picture().jpeg().withXmp(XMP).toBuffer();

/** The picture with no metadata at all, as `roster users avatar set` writes it. */
export const clean = (format: 'jpeg' | 'png' | 'webp') => picture()[format]().toBuffer();

/** The JPEG with metadata, stored on its side with EXIF orientation 6 (shown 64×96). */
export const rotated = () => withMetadata('jpeg', (s) => s.withMetadata({ orientation: 6 }));

export const heifEncAvailable =
  spawnSync('heif-enc', ['--version'], { stdio: 'ignore' }).status === 0 ||
  process.env.CI === 'true';

/** An HEVC HEIC made by heif-enc from the JPEG with metadata (heif-enc copies EXIF and XMP). */
export async function heicWithMetadata(): Promise<Buffer> {
  const dir = mkdtempSync(join(tmpdir(), 'roster-heic-'));
  try {
    writeFileSync(join(dir, 'in.jpg'), await withMetadata('jpeg'));
    const run = spawnSync('heif-enc', [
      '-q',
      '80',
      '-o',
      join(dir, 'out.heic'),
      join(dir, 'in.jpg'),
    ]);
    if (run.status !== 0) throw new Error(`heif-enc failed: ${run.stderr}`);
    return readFileSync(join(dir, 'out.heic'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What of the phone's metadata `bytes` still hold; empty when none. */
export async function leaks(bytes: Buffer): Promise<string[]> {
  const meta = await sharp(bytes).metadata();
  const found: string[] = [];
  if (meta.exif) found.push('exif');
  if (meta.xmp) found.push('xmp');
  if (meta.iptc) found.push('iptc');
  if (bytes.includes(SERIAL)) found.push('serial');
  if (bytes.includes('GPSLatitude')) found.push('gps');
  return found;
}
