/**
 * One paginated read of the whole branch (every listable status), held compactly: the plan
 * matches rows against it instead of asking the service once per row. A million users must fit
 * beside the plan (#27: under 300 MB in all), so nothing per user stays on V8's heap: each user
 * is one record (id, status, values packed into one string) in SpilledRecords, and each unique
 * key is a hash in a KeyIndex pointing at it. A lookup reads the candidates back and compares
 * the key itself. Figures: bench/README.md, "The plan of 100,000 new rows against 1,000,000
 * users".
 */
import { IDENTITY_FIELDS, type IdentityField, identityKey } from '../contract/identity.js';
import { LISTABLE_STATUSES, type UserStatus } from '../contract/user.js';
import { CREATE_ONLY, CUSTOM_PREFIX, FIELDS, READ_ONLY } from './columns.js';
import { currentValues, type Values } from './fields.js';
import { hashKey, KeyIndex } from './key-index.js';
import { SpilledRecords } from './spilled-records.js';
import type { ImportClient } from './types.js';

export interface KnownUser {
  id: string;
  status: UserStatus;
  /**
   * Never activated (no `activatedAt`): invited, never signed up. Deactivated, such a user goes
   * back to pending when activated again (the service's rule), so the plan says so.
   */
  neverSignedUp?: true;
  /** The user's values, packed (see `valuesOf`). */
  packed: string;
}

/** The branch's users as the plan sees them. Close it when the run is over. */
export class Snapshot {
  readonly #records: SpilledRecords;
  readonly #by = Object.fromEntries(IDENTITY_FIELDS.map((f) => [f, new KeyIndex()])) as Record<
    IdentityField,
    KeyIndex
  >;

  /** `memoryBytes`: how much of the users is held in memory before the rest goes to a temp file. */
  constructor(memoryBytes?: number) {
    this.#records = new SpilledRecords(memoryBytes);
  }

  #active = 0;

  get size(): number {
    return this.#records.size;
  }

  /** Users not deactivated (activated and pending). */
  get active(): number {
    return this.#active;
  }

  add(
    user: Pick<KnownUser, 'id' | 'status' | 'neverSignedUp'> & { activatedAt?: string | null },
    values: Values,
  ): void {
    if (user.status !== 'deactivated') this.#active++;
    const never = user.neverSignedUp ?? ('activatedAt' in user && user.activatedAt === null);
    const n = this.#records.append(record(user.id, user.status, never, pack(values)));
    for (const field of IDENTITY_FIELDS) {
      const value = values[field];
      if (value) this.#by[field].add(hashKey(identityKey(field, value)), n);
    }
  }

  /**
   * The user holding this value of a unique key, if any (contract/identity: the service's rule),
   * so the plan finds a row's user by its match key and sees any other key the row would take
   * from someone else. A user met twice while paging is the later one.
   */
  holder(field: IdentityField, value: string): KnownUser | undefined {
    const key = identityKey(field, value);
    for (const n of this.#by[field].candidates(hashKey(key))) {
      const user = this.#user(n);
      const theirs = valuesOf(user)[field];
      if (theirs && identityKey(field, theirs) === key) return user;
    }
    return undefined;
  }

  /** Every user, in the order the service listed them. */
  *users(): Generator<KnownUser, void, undefined> {
    for (const text of this.#records.all()) yield parseRecord(text);
  }

  close(): void {
    this.#records.close();
  }

  #user(n: number): KnownUser {
    return parseRecord(this.#records.get(n));
  }
}

/**
 * A record: `!` for a user who never signed up, the status and the id, each after its length,
 * then the packed values.
 */
const record = (id: string, status: string, neverSignedUp: boolean, packed: string) =>
  `${neverSignedUp ? '!' : ''}${status.length}:${status}${id.length}:${id}${packed}`;

function parseRecord(record: string): KnownUser {
  const never = record.startsWith('!');
  const text = never ? record.slice(1) : record;
  const colon = text.indexOf(':');
  const statusEnd = colon + 1 + Number(text.slice(0, colon));
  const idColon = text.indexOf(':', statusEnd);
  const idEnd = idColon + 1 + Number(text.slice(statusEnd, idColon));
  return {
    id: text.slice(idColon + 1, idEnd),
    status: text.slice(colon + 1, statusEnd) as UserStatus,
    ...(never ? { neverSignedUp: true as const } : {}),
    packed: text.slice(idEnd),
  };
}

/** A snapshot of these users (the tests' way in; takeSnapshot builds it while paging). */
export function snapshotOf(users: KnownUser[], memoryBytes?: number): Snapshot {
  const snapshot = new Snapshot(memoryBytes);
  for (const u of users) snapshot.add(u, valuesOf(u));
  return snapshot;
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
  const snapshot = new Snapshot();
  try {
    const pages = client.iterateUsers({ status: [...LISTABLE_STATUSES] }, PAGE, AHEAD);
    for await (const user of pages) snapshot.add(user, currentValues(user));
    return snapshot;
  } catch (err) {
    snapshot.close();
    throw err;
  }
}
