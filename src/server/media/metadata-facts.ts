/**
 * What in an image's EXIF or XMP gives a person away, named for the message that refuses it:
 * `EXIF (GPS position, camera serial number)`. Only enough of EXIF's TIFF structure is read to
 * find those tags; anything unreadable is just `EXIF` (it is refused all the same).
 */

/** IFD0 and Exif-IFD tags that name a place, a device or a person. */
const TAGS: [tag: number, what: string][] = [
  [0x8825, 'GPS position'],
  [0xa431, 'camera serial number'],
  [0xc62f, 'camera serial number'],
  [0xa435, 'lens serial number'],
  [0xa430, "owner's name"],
  [0x013b, "artist's name"],
  [0x927c, 'maker notes'],
];
const EXIF_IFD = 0x8769;
const ORDER = [...new Set(TAGS.map(([, what]) => what)), 'a thumbnail of the photo'];

const label = (name: string, facts: Set<string>) =>
  facts.size === 0 ? name : `${name} (${ORDER.filter((f) => facts.has(f)).join(', ')})`;

/** `tiff`: EXIF's TIFF structure (after JPEG's `Exif\0\0`). */
export function exifFacts(tiff: Buffer): string {
  const facts = new Set<string>();
  try {
    const order = tiff.toString('latin1', 0, 2);
    if (order !== 'II' && order !== 'MM') return 'EXIF';
    const le = order === 'II';
    const u16 = (o: number) => (le ? tiff.readUInt16LE(o) : tiff.readUInt16BE(o));
    const u32 = (o: number) => (le ? tiff.readUInt32LE(o) : tiff.readUInt32BE(o));
    /** The tags of the IFD at `offset`, and the offset of the next IFD. */
    const ifd = (offset: number) => {
      const count = u16(offset);
      const tags = new Map<number, number>();
      for (let k = 0; k < count; k++) {
        const at = offset + 2 + 12 * k;
        tags.set(u16(at), u32(at + 8));
      }
      return { tags, next: u32(offset + 2 + 12 * count) };
    };
    const ifd0 = ifd(u32(4));
    const exif = ifd0.tags.has(EXIF_IFD) ? ifd(ifd0.tags.get(EXIF_IFD)!).tags : new Map();
    for (const [tag, what] of TAGS) if (ifd0.tags.has(tag) || exif.has(tag)) facts.add(what);
    if (ifd0.next !== 0) facts.add('a thumbnail of the photo');
  } catch {
    // Cut short or pointing outside itself: named as EXIF, whatever was found so far.
  }
  return label('EXIF', facts);
}

/** `packet`: an XMP packet (with whatever header its container gives it). */
export function xmpFacts(packet: Buffer): string {
  const text = packet.toString('utf8');
  const facts = new Set<string>();
  if (/GPS(Latitude|Longitude)/.test(text)) facts.add('GPS position');
  if (/SerialNumber/.test(text)) facts.add('camera serial number');
  if (/OwnerName/.test(text)) facts.add("owner's name");
  return label('XMP', facts);
}
