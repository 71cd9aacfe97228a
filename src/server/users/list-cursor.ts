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

const invalid = (message: string) => validationError([{ field: 'after', message }]);

/** Encodes and checks the cursors of one service; `secret` is the store's signing secret. */
export function listCursors(secret: Buffer) {
  // Its own key (domain separation): a cursor's MAC can never pass for a signed CDN URL's.
  const key = createHmac('sha256', secret).update('roster users-list cursor v1').digest();
  const check = (body: string) => createHmac('sha256', key).update(body).digest().subarray(0, 16);
  const validCheck = (body: string, sum: string) => {
    const given = Buffer.from(sum, 'base64url');
    return given.length === 16 && timingSafeEqual(given, check(body));
  };
  return {
    encode(list: ListShape, at: ListPosition): string {
      const body = Buffer.from(
        JSON.stringify([bindingOf(list), at.keys, at.status, at.rowid]),
      ).toString('base64url');
      return `${body}.${check(body).toString('base64url')}`;
    },
    /** The position a cursor holds, for this list; a 400 naming `after` when it is not one of its. */
    decode: (list: ListShape, cursor: string): ListPosition => {
      const [body, sum, ...rest] = cursor.split('.');
      if (!body || !sum || rest.length > 0 || !validCheck(body, sum)) {
        throw invalid('is not a cursor this service gave (use the `next` of a previous page)');
      }
      return positionOf(list, body);
    },
  };
}

export type ListCursors = ReturnType<typeof listCursors>;

function positionOf(list: ListShape, body: string): ListPosition {
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
