/**
 * The users list's cursor (`after`, `next`): opaque to clients, base64url of the last row's
 * position (its sort values, status and rowid) and of what the list was (branch, sort, statuses,
 * query), with an HMAC over both. A cursor continues only the list it came from: another sort,
 * filter or query, or a changed cursor, is a 400. The position is values, not a row to find, so
 * a page continues correctly after its last row was changed or deleted.
 *
 * The check is keyed: an unkeyed hash let a client re-encode a cursor with a position of its
 * own choosing. The key is derived from the store's signing secret (meta table), so every
 * replica of one database accepts the cursors of every other, and a restart keeps them valid.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
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

const invalid = (message: string) => validationError([{ field: 'after', message }]);
const NOT_OURS = 'is not a cursor this service gave (use the `next` of a previous page)';

/**
 * Seals and opens the cursors of one service (the users list's, the event log's): base64url of
 * what the list was (`binding`) and a position, with an HMAC; `secret` is the store's signing
 * secret.
 */
export function cursorSeal(secret: Buffer) {
  // Its own key (domain separation): a cursor's MAC can never pass for a signed CDN URL's.
  const key = createHmac('sha256', secret).update('roster users-list cursor v1').digest();
  const check = (body: string) => createHmac('sha256', key).update(body).digest().subarray(0, 16);
  // The check as the service wrote it, compared as text: decoding what was given first
  // accepted other spellings of the same bytes (padding, a last character's unused bits).
  const validCheck = (body: string, sum: string) => {
    const given = Buffer.from(sum);
    const expected = Buffer.from(check(body).toString('base64url'));
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
  return {
    /** A cursor of `binding` holding `position`. */
    seal(binding: string, position: unknown[]): string {
      const body = Buffer.from(JSON.stringify([binding, ...position])).toString('base64url');
      return `${body}.${check(body).toString('base64url')}`;
    },
    /** What a cursor of ours holds (its binding first), or undefined when it is not one. */
    open(cursor: string): unknown[] | undefined {
      const [body, sum, ...rest] = cursor.split('.');
      if (!body || !sum || rest.length > 0 || !validCheck(body, sum)) return undefined;
      try {
        const parsed: unknown = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
        return Array.isArray(parsed) ? parsed : undefined;
      } catch {
        return undefined;
      }
    },
  };
}

export type CursorSeal = ReturnType<typeof cursorSeal>;

/** Encodes and checks the users list's cursors. */
export function listCursors(secret: Buffer) {
  const sealed = cursorSeal(secret);
  return {
    encode(list: ListShape, at: ListPosition): string {
      return sealed.seal(bindingOf(list), [at.keys, at.status, at.rowid]);
    },
    /** The position a cursor holds, for this list; a 400 naming `after` when it is not one of its. */
    decode: (list: ListShape, cursor: string): ListPosition => {
      const opened = sealed.open(cursor);
      if (!opened) throw invalid(NOT_OURS);
      return positionOf(list, opened);
    },
  };
}

export type ListCursors = ReturnType<typeof listCursors>;

function positionOf(list: ListShape, opened: unknown[]): ListPosition {
  const [binding, keys, status, rowid] = opened;
  const wellFormed =
    typeof binding === 'string' &&
    Array.isArray(keys) &&
    keys.length === list.sort.length &&
    keys.every((k) => k === null || typeof k === 'string') &&
    typeof status === 'string' &&
    typeof rowid === 'number' &&
    Number.isSafeInteger(rowid);
  if (!wellFormed) throw invalid(NOT_OURS);
  if (binding !== bindingOf(list)) {
    throw invalid(
      'belongs to a list with another sort, status or query: repeat those of the page that gave it, or start again without `after`',
    );
  }
  return { keys, status, rowid };
}
