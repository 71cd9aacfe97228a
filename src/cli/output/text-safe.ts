/**
 * What reaches a terminal is made inert here, by one rule (contract/text-safe.ts): a value from
 * a service or a file is `safeText` (every control character escaped, newlines too) wherever it
 * is quoted into a message or shown in a table; every printer of errors and notices passes the
 * finished message through `safeLines`, which keeps the message's own line breaks and the
 * colours style.ts adds and escapes anything else that slipped in.
 */
import { safeText, safeTextLines } from '../../contract/text-safe.js';
import { STYLE_SEQUENCE } from './style.js';

export { safeText };

/** A message for stderr: its lines and the CLI's own colours kept, every other control escaped. */
export const safeLines = (message: string) =>
  message
    .split(STYLE_SEQUENCE)
    .map((part, i) => (i % 2 === 1 ? part : safeTextLines(part)))
    .join('');

/**
 * JSON.stringify leaves DEL, C1 controls and bidi overrides raw: escape them too, so `-o json`
 * shown on a terminal is inert (it still parses to the same value).
 */
export const safeJson = (json: string) =>
  json.replace(
    /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
  );
