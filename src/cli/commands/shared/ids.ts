/**
 * `-` as an id: one id per line from standard input, so a list pipes into a verb
 * (`roster users list -o ids --status deactivated | roster users remove - --yes`). Blank lines
 * are skipped (and CRLF endings accepted); a line that cannot be an id is kept as a `BadId`, which
 * the batch reports as that line's failure without asking the service.
 */
import { hasControlChars } from '../../../contract/limits.js';
import type { Deps } from '../../context.js';
import { usageError } from '../../errors.js';

/** A stdin line that is no id (control characters, too long): failed on its own. */
export interface BadId {
  text: string;
  error: string;
}

export type IdItem = string | BadId;

export const STDIN_IDS_HELP = "'-' reads ids from standard input, one a line";

export const isBadId = (item: IdItem): item is BadId => typeof item !== 'string';

/** The ids as given, with `-` replaced by the lines of standard input (read once). */
export async function expandIds(ids: string[], deps: Deps): Promise<IdItem[]> {
  const dashes = ids.filter((id) => id === '-').length;
  if (dashes === 0) return ids;
  if (dashes > 1) throw usageError("'-' (ids from standard input) may be given only once");
  let text = '';
  for await (const chunk of deps.io.stdin) text += chunk.toString();
  // The schemas (zod) load only when ids come from stdin.
  const { MAX_TEXT } = await import('../../../contract/schemas.js');
  const lines = parseIdLines(text, MAX_TEXT);
  return ids.flatMap((id) => (id === '-' ? lines : [id]));
}

/** One id a line; an id is text within the service's bounds (`max` characters, no controls). */
export function parseIdLines(text: string, max: number): IdItem[] {
  const items: IdItem[] = [];
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '') continue;
    if (hasControlChars(line) || line.length > max) {
      const why = line.length > max ? `longer than ${max} characters` : 'control characters';
      items.push({ text: line, error: `standard input line ${i + 1}: not an id (${why})` });
    } else items.push(line);
  }
  return items;
}
