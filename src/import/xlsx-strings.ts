/**
 * A workbook's shared-strings table (xl/sharedStrings.xml): each `<si>`'s text, its runs
 * joined, phonetic hints (`<rPh>`) left out. Every string stays in memory for the whole read
 * (a cell may name any of them; xlsx-guard.ts caps the part's size), so they are kept as a few
 * long strings and three numbers each rather than as one heap string apiece: V8's full
 * collections, which the import's bulk memory mode makes frequent (src/cli/memory.ts), then
 * mark a few objects instead of hundreds of thousands (bench/HISTORY.md, "Spreadsheets").
 */
import { parseWholeEntry } from './xlsx-xml.js';
import type { ZipEntry } from './zip-directory.js';

/** Characters gathered into one long string before the next is begun. */
const SEGMENT = 64 * 1024;

export class SharedStrings {
  private readonly segments: string[] = [];
  private pending: string[] = [];
  private pendingLength = 0;
  private segment = new Uint32Array(1024);
  private start = new Uint32Array(1024);
  private end = new Uint32Array(1024);
  size = 0;

  add(text: string): void {
    if (this.size === this.start.length) this.grow();
    this.segment[this.size] = this.segments.length;
    this.start[this.size] = this.pendingLength;
    this.pending.push(text);
    this.pendingLength += text.length;
    this.end[this.size] = this.pendingLength;
    this.size++;
    if (this.pendingLength >= SEGMENT) this.seal();
  }

  /** The `index`th string, or undefined beyond the table. */
  get(index: number): string | undefined {
    if (!(index >= 0 && index < this.size)) return undefined;
    const at = this.segment[index]!;
    const text = at < this.segments.length ? this.segments[at]! : this.seal();
    return text.slice(this.start[index], this.end[index]);
  }

  /** Ends the segment being gathered (also when a string of it is wanted first). */
  private seal(): string {
    const text = this.pending.join('');
    this.segments.push(text);
    this.pending = [];
    this.pendingLength = 0;
    return text;
  }

  private grow() {
    const wider = (a: Uint32Array) => {
      const b = new Uint32Array(a.length * 2);
      b.set(a);
      return b;
    };
    this.segment = wider(this.segment);
    this.start = wider(this.start);
    this.end = wider(this.end);
  }
}

/** Reads the table. */
export async function readSharedStrings(
  file: string,
  entry: ZipEntry,
  signal?: AbortSignal,
): Promise<SharedStrings> {
  const strings = new SharedStrings();
  let text = '';
  let inT = false;
  let phonetic = 0;
  await parseWholeEntry(
    file,
    entry,
    {
      open(name) {
        if (name === 't') {
          if (phonetic === 0) inT = true;
        } else if (name === 'si') text = '';
        else if (name === 'rPh') phonetic++;
      },
      close(name) {
        if (name === 't') inT = false;
        else if (name === 'si') strings.add(text);
        else if (name === 'rPh') phonetic--;
      },
      text(t) {
        if (inT) text += t;
      },
    },
    signal,
  );
  return strings;
}
