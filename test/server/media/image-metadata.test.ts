/**
 * The avatar check's reading of JPEG, PNG and WebP structure: what sharp writes without
 * metadata passes (baseline, progressive, CMYK, with restart markers, ICC, 16-bit alpha,
 * palette, animation); whatever else a file holds is named, decoders' blind spots included.
 */
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, test } from 'vitest';
import { metadataIn } from '../../../src/server/media/image-metadata.js';
import { withMetadata } from './metadata-photos.js';

const base = (channels: 3 | 4 = 3) =>
  sharp({
    create: { width: 40, height: 30, channels, background: { r: 200, g: 40, b: 40, alpha: 0.5 } },
  });

describe('clean images pass', () => {
  test.each([
    ['baseline JPEG', () => base().jpeg().toBuffer(), 'jpg'],
    ['progressive JPEG', () => base().jpeg({ progressive: true }).toBuffer(), 'jpg'],
    ['mozjpeg JPEG', () => base().jpeg({ mozjpeg: true }).toBuffer(), 'jpg'],
    ['CMYK JPEG (Adobe APP14)', () => base().toColourspace('cmyk').jpeg().toBuffer(), 'jpg'],
    ['JPEG with its ICC profile', () => base().jpeg().withIccProfile('p3').toBuffer(), 'jpg'],
    ['PNG', () => base().png().toBuffer(), 'png'],
    ['16-bit PNG with alpha', () => base(4).toColourspace('rgb16').png().toBuffer(), 'png'],
    ['palette PNG', () => base().png({ palette: true }).toBuffer(), 'png'],
    ['lossy WebP with alpha', () => base(4).webp().toBuffer(), 'webp'],
    ['lossless WebP', () => base().webp({ lossless: true }).toBuffer(), 'webp'],
    [
      'animated WebP',
      async () =>
        sharp([await base().png().toBuffer(), await base(4).png().toBuffer()], {
          join: { animated: true },
        })
          .webp()
          .toBuffer(),
      'webp',
    ],
  ] as const)('%s', async (_, make, format) => {
    expect(metadataIn(await make(), format)).toEqual([]);
  });

  test('a JPEG whose scan holds restart markers and stuffed bytes reads to its end', async () => {
    const jpeg = await base().jpeg().toBuffer();
    // Into the scan, just after the SOS header: RST0 and a stuffed 0xFF 0x00, as encoders write.
    const sos = jpeg.indexOf(Buffer.from([0xff, 0xda]));
    const scan = sos + 2 + jpeg.readUInt16BE(sos + 2);
    const marked = Buffer.concat([
      jpeg.subarray(0, scan),
      Buffer.from([0x12, 0xff, 0xd0, 0x34, 0xff, 0x00, 0x56]),
      jpeg.subarray(scan),
    ]);
    expect(metadataIn(marked, 'jpg')).toEqual([]);
    expect(metadataIn(Buffer.concat([marked, Buffer.from([0])]), 'jpg')).toEqual([
      "data after the image's end",
    ]);
  });
});

/** `jpeg` with `segment` (marker + payload) inserted after SOI. */
const withSegment = (jpeg: Buffer, marker: number, payload: Buffer | string) => {
  const data = Buffer.from(payload);
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(data.length + 2, 2);
  return Buffer.concat([jpeg.subarray(0, 2), head, data, jpeg.subarray(2)]);
};

/** `png` with a chunk (CRC left zero: the scan does not need it) inserted after IHDR. */
const withChunk = (png: Buffer, type: string, data: Buffer) => {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  return Buffer.concat([png.subarray(0, 33), head, data, Buffer.alloc(4), png.subarray(33)]);
};

describe('whatever else a file holds is named', () => {
  test('EXIF and XMP with their GPS position and serial, in each format', async () => {
    for (const [format, kind] of [
      ['jpeg', 'jpg'],
      ['png', 'png'],
      ['webp', 'webp'],
    ] as const) {
      expect(metadataIn(await withMetadata(format), kind)).toEqual([
        'EXIF (GPS position, camera serial number)',
        'XMP (GPS position)',
      ]);
    }
  });

  test('JPEG: a comment, IPTC, an MPF second image, other APPn, data after the end', async () => {
    const jpeg = await base().jpeg().toBuffer();
    expect(metadataIn(withSegment(jpeg, 0xfe, 'shot at home'), 'jpg')).toEqual(['a comment']);
    expect(metadataIn(withSegment(jpeg, 0xed, 'Photoshop 3.0\0'), 'jpg')).toEqual(['IPTC']);
    expect(metadataIn(withSegment(jpeg, 0xe2, 'MPF\0II*\0'), 'jpg')).toEqual([
      'further images (MPF)',
    ]);
    expect(metadataIn(withSegment(jpeg, 0xe9, 'vendor'), 'jpg')).toEqual(['an APP9 segment']);
    const trailing = Buffer.concat([jpeg, await withMetadata('jpeg')]);
    expect(metadataIn(trailing, 'jpg')).toEqual(["data after the image's end"]);
  });

  test('PNG: text chunks (compressed XMP too), a timestamp, data after IEND', async () => {
    const png = await base().png().toBuffer();
    const text = withChunk(png, 'tEXt', Buffer.from('Comment\0taken at 52.52N 13.41E'));
    expect(metadataIn(text, 'png')).toEqual(['text (Comment)']);
    const xmp = Buffer.concat([
      Buffer.from('XML:com.adobe.xmp\0\0'),
      deflateSync('<x:xmpmeta><exif:GPSLatitude>52,31N</exif:GPSLatitude></x:xmpmeta>'),
    ]);
    expect(metadataIn(withChunk(png, 'zTXt', xmp), 'png')).toEqual(['XMP (GPS position)']);
    expect(metadataIn(withChunk(png, 'tIME', Buffer.alloc(7)), 'png')).toEqual(['a tIME chunk']);
    expect(metadataIn(Buffer.concat([png, Buffer.from('GPS')]), 'png')).toEqual([
      "data after the image's end",
    ]);
  });

  test('WebP: a chunk of its own; data after the RIFF', async () => {
    const webp = await base().webp().toBuffer();
    const extra = Buffer.concat([
      Buffer.from('ABCD'),
      Buffer.from([2, 0, 0, 0]),
      Buffer.from('hi'),
    ]);
    const riff = Buffer.concat([webp, extra]);
    riff.writeUInt32LE(riff.length - 8, 4);
    expect(metadataIn(riff, 'webp')).toEqual(['a ABCD chunk']);
    expect(metadataIn(Buffer.concat([webp, Buffer.from('x')]), 'webp')).toEqual([
      "data after the image's end",
    ]);
  });

  test('a file cut short or not of its format is named as damaged, never passed', async () => {
    const jpeg = await base().jpeg().toBuffer();
    const damaged = ['a structure that cannot be read (a damaged file)'];
    expect(metadataIn(jpeg.subarray(0, jpeg.length - 10), 'jpg')).toEqual(damaged);
    expect(metadataIn(await base().png().toBuffer(), 'jpg')).toEqual(damaged);
    expect(metadataIn(Buffer.alloc(0), 'png')).toEqual(damaged);
    expect(metadataIn(Buffer.from('RIFF'), 'webp')).toEqual(damaged);
  });
});
