/**
 * Which records hold a key, by the key's 32-bit hash: open addressing in two typed arrays, 8
 * bytes a slot at most half full, for the millions of keys a snapshot indexes (a Map of the key
 * strings took ~80 bytes each). A hash only names candidates: the caller reads each one back
 * and compares the key itself, so a collision costs a read, never a wrong answer.
 */
export class KeyIndex {
  #hashes = new Int32Array(1024);
  /** Record number + 1 per slot; 0 is an empty slot. */
  #records = new Int32Array(1024);
  #size = 0;

  add(hash: number, record: number): void {
    if ((this.#size + 1) * 2 > this.#records.length) this.#grow();
    this.#place(hash | 0, record + 1);
    this.#size++;
  }

  /** The records added under `hash`, the latest first. */
  candidates(hash: number): number[] {
    const h = hash | 0;
    const mask = this.#records.length - 1;
    const found: number[] = [];
    for (let i = h & mask; this.#records[i] !== 0; i = (i + 1) & mask) {
      if (this.#hashes[i] === h) found.push(this.#records[i]! - 1);
    }
    // Record numbers grow as records are added; slots keep no order once the table has grown.
    return found.length > 1 ? found.sort((a, b) => b - a) : found;
  }

  #place(hash: number, slot: number): void {
    const mask = this.#records.length - 1;
    let i = hash & mask;
    while (this.#records[i] !== 0) i = (i + 1) & mask;
    this.#hashes[i] = hash;
    this.#records[i] = slot;
  }

  #grow(): void {
    const hashes = this.#hashes;
    const records = this.#records;
    this.#hashes = new Int32Array(hashes.length * 2);
    this.#records = new Int32Array(records.length * 2);
    for (let i = 0; i < records.length; i++) {
      if (records[i] !== 0) this.#place(hashes[i]!, records[i]!);
    }
  }
}

/** A string's 32-bit hash: FNV-1a over its UTF-16 units, then murmur3's finaliser to spread the low bits the table masks by. */
export function hashKey(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}
