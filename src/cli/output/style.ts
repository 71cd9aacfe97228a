/**
 * A few ANSI styles for people at a terminal: applied only where the stream is a TTY and
 * colours are allowed (not NO_COLOR, not --no-color), so piped output stays plain.
 */
import type { IO } from '../context.js';

const CODES = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
} as const;

export type Style = keyof typeof CODES;

/** The sequences `apply` writes, and nothing else (split keeps them: one capture group). */
export const STYLE_SEQUENCE = new RegExp(
  `(\u001b\\[(?:${[...new Set(Object.values(CODES).flat())].join('|')})m)`,
);

const apply = (on: boolean, style: Style, text: string) =>
  on ? `\u001b[${CODES[style][0]}m${text}\u001b[${CODES[style][1]}m` : text;

/** Styles text bound for stdout. */
export const paint = (io: IO, style: Style, text: string) => apply(io.color, style, text);

/** Styles text bound for stderr. */
export const paintErr = (io: IO, style: Style, text: string) =>
  apply(io.stderrColor ?? false, style, text);
