/**
 * Search means the same on every backend (issue 41): a query's words are each a prefix of some
 * word of the user, case and diacritics folded (docs/decisions.md, "Search"). Run in the sqlite
 * and postgres projects against one seeded set and one written-down rule (`matches` below), so
 * the two backends give the same answers to every query class, in every sort, with and without
 * a status filter, by offset and by cursor.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ListableStatus, SORT_KEYS } from '../../src/contract/user.js';
import type { Store } from '../../src/store/store.js';
import type { ListFilter, UserView } from '../../src/store/types.js';
import { TEST_AUDIT } from '../helpers/audit.js';
import { BACKEND, openTestStore } from '../helpers/database.js';
import { userRow } from '../helpers/user-row.js';

/** The fields a search reads (each split into words). */
const FIELDS = [
  'first_name',
  'last_name',
  'email',
  'user_name',
  'position',
  'department',
  'location',
  'phone',
] as const;

/**
 * The documented fold, written out as the oracle: lower case, marks removed after
 * decomposition, and the letters that decompose to nothing spelled as German and Nordic
 * keyboards spell them without the letter (ß ss, ø o, đ d, ł l, ı i, æ ae, œ oe).
 */
const fold = (s: string) =>
  s
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/ø/g, 'o')
    .replace(/đ/g, 'd')
    .replace(/ł/g, 'l')
    .replace(/ı/g, 'i')
    .replace(/æ/g, 'ae')
    .replace(/œ/g, 'oe');
const words = (s: string) => fold(s).match(/[\p{L}\p{N}]+/gu) ?? [];
const matches = (u: UserView, query: string) => {
  const own = FIELDS.flatMap((f) => words(String(u[f] ?? '')));
  const asked = words(query);
  return asked.length > 0 && asked.every((q) => own.some((w) => w.startsWith(q)));
};

// first, last, email, location, status
const PEOPLE: [string, string, string | null, string | null, ListableStatus][] = [
  ['Anna', 'Weiß', 'anna.weiss4@example.com', 'Berlin', 'activated'],
  ['Hans', 'Weiss', 'hans.weiss@example.com', 'Bremen', 'pending'],
  ['Jörg', 'Straße', null, 'München', 'activated'],
  ['Søren', 'Østergaard', 'soren@example.dk', 'København', 'activated'],
  ['Soren', 'Ostergaard', 'soren.o@example.dk', 'Aarhus', 'deactivated'],
  ['İlkay', 'Gündoğan', 'ilkay@example.com.tr', 'İstanbul', 'activated'],
  ['Ilkay', 'Işık', null, 'Izmir', 'pending'],
  ['Nguyễn', 'Văn Đức', 'duc.nguyen@example.vn', 'Hà Nội', 'activated'],
  ['Trần', 'Thị Hương', 'huong@example.vn', 'Đà Nẵng', 'activated'],
  ['Đặng', 'Ngọc Ánh', 'anh.dang@example.vn', 'Huế', 'pending'],
  ['太郎', '山田', 'taro.yamada@example.jp', '東京', 'activated'],
  ['小明', '王', 'xiaoming@example.cn', '北京', 'activated'],
  ['花子', '山本', null, '大阪', 'deactivated'],
  ['Łukasz', 'Nowak', 'lukasz@example.pl', 'Łódź', 'activated'],
  ['Zoë', 'Æbelø', 'zoe@example.dk', 'Odense', 'activated'],
  ['Müller', 'Mueller', 'm.mueller@example.de', 'Köln', 'activated'],
  ['Max', 'Müller', 'max.mueller7@example.de', 'Mülheim', 'pending'],
  ['Mia', 'Muller', 'mia@example.de', null, 'activated'],
  ['Anna', 'Schmidt', 'anna.schmidt4@example.de', 'Berlin', 'activated'],
  ['Anna', 'Schmitz', 'schmitz@example.de', 'Bonn', 'deactivated'],
  ['Anne', 'Schmidt-Weiß', 'anne.sw@example.de', 'Hamburg', 'activated'],
  ['Élodie', 'Cœur', 'elodie@example.fr', 'Orléans', 'activated'],
];

/** One of each query class of the issue, and the letters only some backends fold alike. */
const QUERIES = [
  // one letter, two letters with a diacritic, a prefix, a full name, an email fragment
  'M',
  'ø',
  'Đ',
  'i',
  '山',
  'Mü',
  'Sø',
  'Schm',
  'Weiss',
  'weiß',
  'STRASSE',
  'Anna Schmidt',
  'Schmidt Anna',
  'søren østergaard',
  'İlkay',
  'ilkay gundogan',
  'Işık',
  'nguyen van duc',
  'Đà Nẵng',
  'huong',
  '山田',
  '太郎',
  'lodz',
  'aebelo',
  'coeur',
  'schmidt4',
  'weiss4',
  'example de',
  // a rare word, a word no one has
  'Orléans',
  'Xyzzy',
];

const STATUS_FILTERS: ListableStatus[][] = [
  ['activated'],
  ['activated', 'pending'],
  ['activated', 'pending', 'deactivated'],
];

const SORTS: ListFilter['sort'][] = [
  [
    { key: 'lastName', dir: 'ASC' },
    { key: 'firstName', dir: 'ASC' },
  ],
  [{ key: 'firstName', dir: 'ASC' }],
  ...SORT_KEYS.map((key) => [{ key, dir: 'DESC' as const }]),
];

/**
 * The ways a search reads its page, each a store of its own over the same set: as it would at
 * this size (few matches: sorted), and as many matches would (searchSortsUpTo 0): on SQLite by
 * walking the order and checking each row's words (sqlite/users-list.ts wordsWalk), and with a
 * walk that gives up after 5 rows, so that pages mix it with the full-text reads.
 */
const WAYS: { way: string; tuning: { searchSortsUpTo?: number; searchWalksUpTo?: number } }[] = [
  { way: 'as this size reads', tuning: {} },
  { way: 'as many matches read', tuning: { searchSortsUpTo: 0 } },
  ...(BACKEND === 'sqlite'
    ? [{ way: 'with a walk that gives up', tuning: { searchSortsUpTo: 0, searchWalksUpTo: 5 } }]
    : []),
];

const ids = (rows: UserView[]) => rows.map((r) => r.external_id);

describe.each(WAYS)(`search on ${BACKEND}, $way`, ({ tuning }) => {
  let store: Store;
  let dispose: () => Promise<void>;
  let branchId: number;
  const dataDir = mkdtempSync(join(tmpdir(), 'roster-search-'));

  beforeAll(async () => {
    ({ store, dispose } = await openTestStore(dataDir, tuning));
    await store.bootstrap();
    const tenant = (await store.tenants.byHost('*'))!;
    branchId = (await store.branches.add(tenant.id, 'search-semantics')).id;
    for (const [i, [first, last, email, location, status]] of PEOPLE.entries()) {
      await store.users.insert(
        userRow({
          tenant_id: tenant.id,
          branch_id: branchId,
          external_id: `s${i}`,
          first_name: first,
          last_name: last,
          email,
          location,
          status,
          position: i % 3 === 0 ? 'Team Lead' : 'Engineer',
          phone: i % 4 === 0 ? `+49 30 ${1000 + i}` : null,
        }),
        TEST_AUDIT,
      );
    }
  });
  afterAll(async () => {
    await dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Every page of a list by cursor, `limit` at a time. */
  async function walk(f: Omit<ListFilter, 'after' | 'offset' | 'limit'>, limit: number) {
    const seen: (string | null)[] = [];
    let after: ListFilter['after'];
    do {
      const page = await store.users.list({ ...f, limit, offset: 0, after });
      seen.push(...ids(page.rows));
      after = page.next;
    } while (after);
    return seen;
  }

  test('the rule itself, pinned on the letters backends fold differently', () => {
    const named = (query: string) =>
      PEOPLE.filter(([first, last, email, location]) =>
        matches(
          { first_name: first, last_name: last, email, location } as unknown as UserView,
          query,
        ),
      ).map(([first, last]) => `${first} ${last}`);
    expect(named('Weiss')).toEqual(['Anna Weiß', 'Hans Weiss', 'Anne Schmidt-Weiß']);
    expect(named('strasse')).toEqual(['Jörg Straße']);
    expect(named('ostergaard')).toEqual(['Søren Østergaard', 'Soren Ostergaard']);
    expect(named('ilkay')).toEqual(['İlkay Gündoğan', 'Ilkay Işık']);
    expect(named('dang')).toEqual(['Đặng Ngọc Ánh']);
    expect(named('山')).toEqual(['太郎 山田', '花子 山本']);
    expect(named('太郎')).toEqual(['太郎 山田']);
  });

  test('each query gives the users the rule matches, in the order of the list without it', async () => {
    const differences: string[] = [];
    for (const statuses of STATUS_FILTERS) {
      for (const sort of SORTS) {
        const everyone = (
          await store.users.list({ branchId, statuses, sort, limit: 100, offset: 0 })
        ).rows;
        // At once: PostgreSQL answers on several pool connections.
        const answers = await Promise.all(
          QUERIES.map((query) =>
            store.users.list({ branchId, statuses, sort, query, limit: 100, offset: 0 }),
          ),
        );
        for (const [i, query] of QUERIES.entries()) {
          const expected = ids(everyone.filter((u) => matches(u, query)));
          const page = answers[i]!;
          const got = ids(page.rows);
          const label = `${query} [${statuses}] ${sort.map((s) => `${s.key}_${s.dir}`)}`;
          if (JSON.stringify(got) !== JSON.stringify(expected) || page.total !== expected.length)
            differences.push(`${label}: ${got.join(',')} (${page.total}) ≠ ${expected.join(',')}`);
        }
      }
    }
    expect(differences).toEqual([]);
  });

  test('by cursor, two at a time, the same users as one page', async () => {
    const statuses: ListableStatus[] = ['activated', 'pending'];
    for (const sort of SORTS.slice(0, 3)) {
      for (const query of ['M', 'Schm', 'Weiss', 'ilkay', '山', 'example']) {
        const whole = await store.users.list({
          branchId,
          statuses,
          sort,
          query,
          limit: 100,
          offset: 0,
        });
        expect(await walk({ branchId, statuses, sort, query }, 2), query).toEqual(ids(whole.rows));
      }
    }
  });
});
