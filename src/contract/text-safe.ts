/**
 * Text from a service or a file is data, not terminal commands: C0/C1 control characters, DEL
 * and bidi overrides in a user's name could retitle the terminal, clear the screen, reorder what
 * an admin reads, or split one error over two lines. Every value quoted into a message or shown
 * in a table goes through `safeText` (the client's error messages too, hence its place here).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const visible = (c: string) => {
  const code = c.codePointAt(0) ?? 0;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`;
};

/** Replaces each unsafe character with a visible escape (`\x1b`, `\x0a`, `\u202e`). */
export const safeText = (s: string) => s.replace(UNSAFE, visible);

/** The same, but a line feed stays: for text made of lines (a message and its hints). */
export const safeTextLines = (s: string) => s.replace(UNSAFE, (c) => (c === '\n' ? c : visible(c)));
