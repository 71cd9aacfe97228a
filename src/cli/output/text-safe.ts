/**
 * Text from a service is data, not terminal commands: C0/C1 control characters, DEL and bidi
 * overrides in a user's name could retitle the terminal, clear the screen or reorder what an
 * admin reads. Every text and table output goes through `safeText`.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Replaces each unsafe character with a visible escape (`\x1b`, `\u202e`). */
export const safeText = (s: string) =>
  s.replace(UNSAFE, (c) => {
    const code = c.codePointAt(0) ?? 0;
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`;
  });

/**
 * JSON.stringify leaves DEL, C1 controls and bidi overrides raw: escape them too, so `-o json`
 * shown on a terminal is inert (it still parses to the same value).
 */
export const safeJson = (json: string) =>
  json.replace(
    /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
  );
