/**
 * The users list's cursor (`after`, `next`): opaque to clients, base64url of the last row's
 * position (its sort values, status and rowid) and of what the list was (branch, sort, statuses,
 * query), with a check over both. A cursor continues only the list it came from: another sort,
 * filter or query, or a changed cursor, is a 400. The position is values, not a row to find, so
 * a page continues correctly after its last row was changed or deleted.
 */
import { createHash } from 'node:crypto';
import type { ListFilter, ListPosition } from '../../store/types.js';
import { validationError } from '../errors.js';

type ListShape = Pick<ListFilter, 'branchId' | 'sort' | 'statuses' | 'query'>;

/** What a cursor is bound to, as one short string. */
function bindingOf(list: ListShape): string {
  const shape = JSON.stringify([
    list.branchId,
    list.sort.map((s) => `${s.key}_${s.dir}`),
    [...list.statuses].sort(),
    list.query ?? null,
  ]);
  return createHash('sha256').update(shape).digest('base64url').slice(0, 16);
}

const check = (body: string) => createHash('sha256').update(body).digest('base64url').slice(0, 12);

export function encodeCursor(list: ListShape, at: ListPosition): string {
  const body = Buffer.from(
    JSON.stringify([bindingOf(list), at.keys, at.status, at.rowid]),
  ).toString('base64url');
  return `${body}.${check(body)}`;
}

const invalid = (message: string) => validationError([{ field: 'after', message }]);

/** The position a cursor holds, for this list; a 400 naming `after` when it is not one of its. */
export function decodeCursor(list: ListShape, cursor: string): ListPosition {
  const [body, sum, ...rest] = cursor.split('.');
  if (!body || !sum || rest.length > 0 || check(body) !== sum) {
    throw invalid('is not a cursor this service gave (use the `next` of a previous page)');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const [binding, keys, status, rowid] = Array.isArray(parsed) ? parsed : [];
  const wellFormed =
    typeof binding === 'string' &&
    Array.isArray(keys) &&
    keys.length === list.sort.length &&
    keys.every((k) => k === null || typeof k === 'string') &&
    typeof status === 'string' &&
    Number.isSafeInteger(rowid);
  if (!wellFormed) {
    throw invalid('is not a cursor this service gave (use the `next` of a previous page)');
  }
  if (binding !== bindingOf(list)) {
    throw invalid(
      'belongs to a list with another sort, status or query: repeat those of the page that gave it, or start again without `after`',
    );
  }
  return { keys, status, rowid };
}
