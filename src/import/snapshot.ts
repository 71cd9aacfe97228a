/**
 * One paginated read of the whole branch (every listable status), held compactly: the plan
 * matches rows against it instead of asking the service once per row. Each user's values are
 * packed into one flat string, about half the memory of an object of strings (at 100,000
 * users: bench/README.md, "Figures from src/ comments").
 */
import { IDENTITY_FIELDS, type IdentityField, identityKey } from '../contract/identity.js';
import { LISTABLE_STATUSES, type UserStatus } from '../contract/user.js';
import { CREATE_ONLY, CUSTOM_PREFIX, FIELDS, READ_ONLY } from './columns.js';
import { currentValues, type Values } from './fields.js';
import type { ImportClient } from './types.js';

export interface KnownUser {
  id: string;
  status: UserStatus;
  /** The user's values, packed (see `valuesOf`). */
  packed: string;
}

export interface Snapshot {
  users: KnownUser[];
  /**
   * Users by each key that is unique among them (contract/identity: the service's rule), so the
   * plan finds a row's user by its match key and sees any other key the row would take from
   * someone else.
   */
  by: Record<IdentityField, Map<string, KnownUser>>;
}

/** The user holding this value of a unique key, if any. */
export const holder = (snapshot: Snapshot, field: IdentityField, value: string) =>
  snapshot.by[field].get(identityKey(field, value));

const emptyIndex = () =>
  Object.fromEntries(IDENTITY_FIELDS.map((f) => [f, new Map()])) as Snapshot['by'];

function index(by: Snapshot['by'], user: KnownUser, values: Values) {
  for (const field of IDENTITY_FIELDS) {
    const value = values[field];
    if (value) by[field].set(identityKey(field, value), user);
  }
}

/** A snapshot of these users (the tests' way in; takeSnapshot builds it while paging). */
export function snapshotOf(users: KnownUser[]): Snapshot {
  const by = emptyIndex();
  for (const u of users) index(by, u, valuesOf(u));
  return { users, by };
}

const NAMED = FIELDS.filter((f) => !CREATE_ONLY.has(f) && !READ_ONLY.has(f));

const SEP = '\u0001';
const NULL = '\u0002';
const JSON_MARK = '\u0000';

/**
 * The values as one flat string: cells joined by U+0001, U+0002 for an absent one, custom fields
 * as name/value cells at the end. (JSON.stringify would do, but V8 returns a rope that takes
 * twice the memory.) A value that itself contains these characters falls back to JSON.
 */
export function pack(values: Values): string {
  // Plain loops, no entries/filter/flat/map: the snapshot packs every user of the branch.
  const cells: (string | null)[] = [];
  for (const f of NAMED) cells.push(values[f] ?? null);
  for (const f in values) if (f.startsWith(CUSTOM_PREFIX)) cells.push(f, values[f] ?? null);
  if (cells.some((c) => c?.includes(SEP) || c?.includes(NULL) || c?.includes(JSON_MARK))) {
    const json = JSON_MARK + JSON.stringify(cells);
    json.charCodeAt(0); // flattens the rope
    return json;
  }
  for (let i = 0; i < cells.length; i++) cells[i] ??= NULL;
  return cells.join(SEP);
}

/** A known user's values, as an import row would write them (absent = empty). */
export function valuesOf(user: KnownUser): Values {
  const { packed } = user;
  const values: Values = {};
  if (packed.startsWith(JSON_MARK)) {
    const cells: (string | null)[] = JSON.parse(packed.slice(1));
    NAMED.forEach((f, i) => {
      if (cells[i] !== null) values[f] = cells[i]!;
    });
    for (let i = NAMED.length; i < cells.length; i += 2) values[cells[i]!] = cells[i + 1]!;
    return values;
  }
  // Cell by cell along the string: no array of every cell.
  let at = 0;
  let name: string | undefined;
  for (let i = 0; at <= packed.length; i++) {
    let end = packed.indexOf(SEP, at);
    if (end < 0) end = packed.length;
    const cell = packed.slice(at, end);
    at = end + 1;
    if (i < NAMED.length) {
      if (cell !== NULL) values[NAMED[i]!] = cell;
    } else if (name === undefined) name = cell;
    else {
      values[name] = cell === NULL ? null : cell;
      name = undefined;
    }
  }
  return values;
}

/**
 * The service's default order (last, first name, then row id) is indexed. Roster pages it by
 * cursor (see paginate): nothing is missed or seen twice while users change, and deep pages cost
 * what the first does. By offset (a service without cursors), a user created while paging may
 * shift a page: one user is then missed (a row for it gets a 409 and converges; --sync leaves
 * it alone) or seen twice (harmless).
 */
const PAGE = 1000;
/**
 * Pages asked for while one is read, by offset only (a cursor is known once its page is): the
 * service answers the next while this process unpacks the last.
 */
const AHEAD = 2;

export async function takeSnapshot(client: ImportClient): Promise<Snapshot> {
  const users: KnownUser[] = [];
  const by = emptyIndex();
  const pages = client.iterateUsers({ status: [...LISTABLE_STATUSES] }, PAGE, AHEAD);
  for await (const user of pages) {
    const values = currentValues(user);
    const known: KnownUser = { id: user.id, status: user.status, packed: pack(values) };
    users.push(known);
    index(by, known, values);
  }
  return { users, by };
}
