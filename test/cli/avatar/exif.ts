/** Tags of an EXIF block (as sharp's metadata().exif gives it), read far enough for tests. */

/** Every tag number in IFD0 and the IFDs it points to (Exif 0x8769, GPS 0x8825). */
export function exifTags(exif: Buffer): Set<number> {
  const tiff = exif.subarray(exif.indexOf('Exif\0\0', 0, 'latin1') + 6);
  const le = tiff.toString('latin1', 0, 2) === 'II';
  const u16 = (o: number) => (le ? tiff.readUInt16LE(o) : tiff.readUInt16BE(o));
  const u32 = (o: number) => (le ? tiff.readUInt32LE(o) : tiff.readUInt32BE(o));
  const tags = new Set<number>();
  const walk = (offset: number) => {
    const count = u16(offset);
    for (let i = 0; i < count; i++) {
      const entry = offset + 2 + i * 12;
      const tag = u16(entry);
      tags.add(tag);
      if (tag === 0x8769 || tag === 0x8825) walk(u32(entry + 8));
    }
  };
  walk(u32(4));
  return tags;
}

export const GPS_IFD = 0x8825;
export const GPS_LATITUDE = 0x0002;
export const BODY_SERIAL_NUMBER = 0xa431;
