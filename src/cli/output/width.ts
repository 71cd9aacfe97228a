/**
 * Terminal cells: how wide text shows, and cutting or splitting it to a width. Wide East Asian
 * characters and emoji take two cells, combining marks none.
 */
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]/u;
const MARK = /\p{M}/u;

const cells = (ch: string) => (MARK.test(ch) ? 0 : WIDE.test(ch) ? 2 : 1);

export function displayWidth(s: string): number {
  let w = 0;
  for (const ch of s) w += cells(ch);
  return w;
}

/** `s` cut to `width` cells, ending in `…` when cut. */
export function clip(s: string, width: number): string {
  if (displayWidth(s) <= width) return s;
  if (width <= 0) return '';
  let out = '';
  let w = 0;
  for (const ch of s) {
    const cw = cells(ch);
    if (w + cw > width - 1) break;
    out += ch;
    w += cw;
  }
  return `${out}…`;
}

/** `s` cut to `width` cells from the front, starting with `…` when cut: a file name's end tells files apart. */
export function clipStart(s: string, width: number): string {
  if (displayWidth(s) <= width) return s;
  if (width <= 0) return '';
  const chars = [...s];
  let out = '';
  let w = 0;
  for (let i = chars.length - 1; i >= 0; i--) {
    const cw = cells(chars[i]!);
    if (w + cw > width - 1) break;
    out = chars[i] + out;
    w += cw;
  }
  return `…${out}`;
}

/** `s` in pieces of at most `width` cells, for text that wraps instead of being cut. */
export function pieces(s: string, width: number): string[] {
  const out: string[] = [];
  let piece = '';
  let w = 0;
  for (const ch of s) {
    const cw = cells(ch);
    if (w + cw > width && piece !== '') {
      out.push(piece);
      piece = '';
      w = 0;
    }
    piece += ch;
    w += cw;
  }
  return [...out, piece];
}

export const pad = (s: string, width: number) =>
  s + ' '.repeat(Math.max(0, width - displayWidth(s)));

/** `text` broken at spaces into lines of at most `width` cells (a longer word stays whole). */
export function wrapWords(text: string, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && displayWidth(line) + 1 + displayWidth(word) > width) {
      out.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...out, line];
}

/**
 * `s` in at most `width` cells with its middle elided (`ann.archer@a-ve…example.com`): for a
 * value people tell apart by both ends, as an email by its name and its domain.
 */
export function clipMiddle(s: string, width: number): string {
  if (displayWidth(s) <= width) return s;
  if (width < 3) return clip(s, width);
  const tail = Math.floor((width - 1) / 2);
  const head = clip(s, width - tail).slice(0, -1);
  return `${head}…${clipStart(s, tail + 1).slice(1)}`;
}
