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

/** What a cursor is bound to, as one short string: a digest of what the list was. */
export function bindingOfShape(shape: unknown): string {
  return createHash('sha256').update(JSON.stringify(shape)).digest('base64url').slice(0, 16);
}

function bindingOf(list: ListShape): string {
  return bindingOfShape([
    list.branchId,
    list.sort.map((s) => `${s.key}_${s.dir}`),
    [...list.statuses].sort(),
    list.query ?? null,
  ]);
}

const check = (body: string) => createHash('sha256').update(body).digest('base64url').slice(0, 12);

/** A cursor of `binding` holding `position`: the same mechanism for every cursor-paged list. */
export function sealCursor(binding: string, position: unknown[]): string {
  const body = Buffer.from(JSON.stringify([binding, ...position])).toString('base64url');
  return `${body}.${check(body)}`;
}

/** What a cursor of ours holds (its binding first), or undefined when it is not one. */
export function openCursor(cursor: string): unknown[] | undefined {
  const [body, sum, ...rest] = cursor.split('.');
  if (!body || !sum || rest.length > 0 || check(body) !== sum) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    return Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export function encodeCursor(list: ListShape, at: ListPosition): string {
  return sealCursor(bindingOf(list), [at.keys, at.status, at.rowid]);
}

const invalid = (message: string) => validationError([{ field: 'after', message }]);

/** The position a cursor holds, for this list; a 400 naming `after` when it is not one of its. */
export function decodeCursor(list: ListShape, cursor: string): ListPosition {
  const [binding, keys, status, rowid] = openCursor(cursor) ?? [];
  const wellFormed =
    typeof binding === 'string' &&
    Array.isArray(keys) &&
    keys.length === list.sort.length &&
    keys.every((k) => k === null || typeof k === 'string') &&
    typeof status === 'string' &&
    typeof rowid === 'number' &&
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
