/**
 * The repository contract: what every Store backend promises, run against the backend this run
 * tests (SQLite by default, PostgreSQL with ROSTER_TEST_DATABASE). The HTTP suites then prove
 * the same answers end to end.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { GROUP_STEPS } from '../../src/store/common/keyset.js';
import { UniqueViolationError } from '../../src/store/errors.js';
import { newObjectId } from '../../src/store/ids.js';
import { databaseTarget, openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import {
  type ListFilter,
  type NewMediumRow,
  type NewUserRow,
  type Tenant,
  toRecord,
  VIEW_COLUMNS,
} from '../../src/store/types.js';
import { TEST_AUDIT } from '../helpers/audit.js';
import { BACKEND, openTestStore } from '../helpers/database.js';
import { userRow } from '../helpers/user-row.js';

let store: Store;
let database: string | undefined;
let dispose: () => Promise<void>;
let tenant: Tenant;
let branchId: number;
const dataDir = mkdtempSync(join(tmpdir(), 'roster-contract-'));

beforeAll(async () => {
  ({ store, database, dispose } = await openTestStore(dataDir));
  expect(store.engine).toBe(BACKEND);
  await store.bootstrap();
  tenant = (await store.tenants.byHost('*'))!;
  branchId = (await store.branches.byName(tenant.id, 'main'))!.id;
});
afterAll(async () => {
  await dispose();
  rmSync(dataDir, { recursive: true, force: true });
});

const user = (overrides: Partial<NewUserRow> = {}) =>
  userRow({ tenant_id: tenant.id, branch_id: branchId, ...overrides });

async function branch(name: string) {
  return store.branches.add(tenant.id, name);
}

/**
 * A second store on the same database (another process such as `roster tokens revoke`, or
 * another replica) and a token of the main branch made through the first; `other` is closed
 * after `fn`.
 */
async function withOtherStore(
  tokenName: string,
  fn: (other: Store, token: { id: string }, secret: string) => Promise<void>,
) {
  const other = await openStore({ dataDir, target: databaseTarget(database, dataDir) });
  try {
    const { token, secret } = await store.tokens.create(
      branchId,
      tokenName,
      ['users:read'],
      ['api'],
      TEST_AUDIT,
    );
    await fn(other, token, secret);
  } finally {
    await other.close();
  }
}

describe(`the store contract on ${BACKEND}`, () => {
  test('bootstrap runs once: one tenant, one branch, one admin token', async () => {
    expect(await store.bootstrap()).toBeUndefined();
    expect((await store.tenants.list()).map((t) => t.host)).toEqual(['*']);
    expect((await store.branches.list(tenant.id)).map((b) => b.name)).toEqual(['main']);
    const tokens = await store.tokens.list();
    expect(tokens.map((t) => [t.name, t.scopes.length, t.tenant, t.branch])).toEqual([
      ['admin', 6, '*', 'main'],
    ]);
  });

  test('tenants: added with their main branch, found without regard to case, unique', async () => {
    const acme = await store.tenants.add('acme.example.com');
    expect(await store.branches.byName(acme.id, 'main')).toMatchObject({ tenantId: acme.id });
    expect((await store.tenants.byHost('ACME.example.com'))?.id).toBe(acme.id);
    expect((await store.tenants.resolve('acme.example.com'))?.id).toBe(acme.id);
    expect((await store.tenants.resolve('unknown.example.com'))?.host).toBe('*');
    await expect(store.tenants.add('acme.example.com')).rejects.toThrow(UniqueViolationError);
    await expect(store.tenants.add('acme.example.com')).rejects.toMatchObject({ field: 'host' });
    expect(await store.tenants.setQuota('acme.example.com', 5000)).toBe(true);
    expect(await store.tenants.setPublicUrl('acme.example.com', 'https://acme.example')).toBe(true);
    expect(await store.tenants.byHost('acme.example.com')).toMatchObject({
      quotaBytes: 5000,
      publicUrl: 'https://acme.example',
    });
    expect(await store.tenants.setQuota('nobody.example.com', 1)).toBe(false);
    await expect(store.branches.add(acme.id, 'main')).rejects.toMatchObject({ field: 'branch' });
  });

  test('credentials: a token counts on its own tenant only, and not once revoked', async () => {
    const main = (await store.branches.byName(tenant.id, 'main'))!;
    const { token, secret } = await store.tokens.create(
      main.id,
      'reader',
      ['users:read'],
      ['api'],
      TEST_AUDIT,
    );
    const found = await store.credentials.resolve('localhost', secret);
    expect(found).toMatchObject({
      tenant: { host: '*' },
      branch: { name: 'main' },
      token: { id: token.id, scopes: ['users:read'] },
    });
    // acme.example.com is a tenant of its own: the catch-all's token is not valid there.
    expect(await store.credentials.resolve('acme.example.com', secret)).toBeUndefined();
    const forged = Buffer.from(`${token.id}:not-the-secret`).toString('base64');
    expect(await store.credentials.resolve('localhost', forged)).toBeUndefined();
    expect(await store.tokens.authenticate(secret)).toMatchObject({ id: token.id });
    expect(await store.tokens.revoke(token.id, TEST_AUDIT)).toBe(true);
    expect(await store.tokens.revoke(token.id, TEST_AUDIT)).toBe(false);
    expect(await store.credentials.resolve('localhost', secret)).toBeUndefined();
    expect(await store.tokens.authenticate(secret)).toBeUndefined();
  });

  test('credentials: a change through another connection counts on the very next resolve', async () => {
    await withOtherStore('kept', async (other, token, secret) => {
      try {
        // Twice: the second answer may come from what the first one kept.
        expect(await store.credentials.resolve('localhost', secret)).toMatchObject({
          token: { id: token.id },
          tenant: { publicUrl: null },
        });
        expect(await store.credentials.resolve('localhost', secret)).toMatchObject({
          token: { id: token.id },
          tenant: { publicUrl: null },
        });
        expect(await other.tenants.setPublicUrl('*', 'https://roster.example')).toBe(true);
        expect(await store.credentials.resolve('localhost', secret)).toMatchObject({
          tenant: { publicUrl: 'https://roster.example' },
        });
        expect(await other.tokens.revoke(token.id, TEST_AUDIT)).toBe(true);
        expect(await store.credentials.resolve('localhost', secret)).toBeUndefined();
      } finally {
        await other.tenants.setPublicUrl('*', null);
      }
    });
  });

  test('credentials: resolves at once, after a revocation elsewhere, all fail', async () => {
    await withOtherStore('burst', async (other, token, secret) => {
      const burst = () =>
        Promise.all(
          Array.from({ length: 20 }, () => store.credentials.resolve('localhost', secret)),
        );
      expect((await burst()).every((c) => c?.token.id === token.id)).toBe(true);
      // A burst on its way while the revocation commits may see either; one after it, none.
      const during = burst();
      expect(await other.tokens.revoke(token.id, TEST_AUDIT)).toBe(true);
      const after = await burst();
      await during;
      expect(after).toEqual(Array.from({ length: 20 }, () => undefined));
    });
  });

  test('credentials: a resolve asked while an earlier one waits still sees a revocation made before it asked', async () => {
    // Resolves share version reads (the epoch's on PostgreSQL, data_version on SQLite): one
    // shared with a caller must be made after that caller asked.
    await withOtherStore('asked-after', async (other, token, secret) => {
      expect(await store.credentials.resolve('localhost', secret)).toMatchObject({
        token: { id: token.id },
      });
      const before = store.credentials.resolve('localhost', secret);
      expect(await other.tokens.revoke(token.id, TEST_AUDIT)).toBe(true);
      const after = store.credentials.resolve('localhost', secret);
      expect(await after).toBeUndefined();
      await before; // asked before the revocation: may see either
    });
  });

  test('users: a find gives the columns an answer shows, never a secret hash', async () => {
    const b = await branch('users-view');
    const a = await store.users.insert(
      user({ branch_id: b.id, external_id: 'V-1', secret_hash: 'h', recovery_hash: 'r' }),
      TEST_AUDIT,
    );
    for (const key of [a.id, 'V-1']) {
      const found = await store.users.find(b.id, key);
      expect(Object.keys(found!).sort()).toEqual([...VIEW_COLUMNS].sort());
      expect(toRecord(found!)).toEqual(toRecord(a));
    }
  });

  test('users: found by id or externalId, unique keys name their field', async () => {
    const b = await branch('users-keys');
    const a = await store.users.insert(
      user({ branch_id: b.id, external_id: 'E-1', email: 'A@x.io', email_norm: 'a@x.io' }),
      TEST_AUDIT,
    );
    expect((await store.users.find(b.id, a.id))?.id).toBe(a.id);
    expect((await store.users.find(b.id, 'E-1'))?.id).toBe(a.id);
    expect(await store.users.find(branchId, 'E-1')).toBeUndefined();
    await expect(
      store.users.insert(
        user({ branch_id: b.id, email: 'a@X.io', email_norm: 'a@x.io' }),
        TEST_AUDIT,
      ),
    ).rejects.toMatchObject({ field: 'email' });
    await expect(
      store.users.insert(user({ branch_id: b.id, external_id: 'E-1' }), TEST_AUDIT),
    ).rejects.toMatchObject({ field: 'externalId' });
    // A deleted user's keys are free again.
    await store.users.update(b.id, 'E-1', () => ({ status: 'deleted' }), TEST_AUDIT);
    expect(await store.users.find(b.id, 'E-1')).toBeUndefined();
    await store.users.insert(user({ branch_id: b.id, external_id: 'E-1' }), TEST_AUDIT);
  });

  test('users.update reads, decides and writes as one step: concurrent changes all land', async () => {
    const b = await branch('users-atomic');
    await store.users.insert(user({ branch_id: b.id, external_id: 'counter' }), TEST_AUDIT);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.users.update(
          b.id,
          'counter',
          (row) => ({
            custom: JSON.stringify({ ...JSON.parse(row.custom), [`k${i}`]: String(i) }),
          }),
          TEST_AUDIT,
        ),
      ),
    );
    const row = await store.users.find(b.id, 'counter');
    expect(Object.keys(JSON.parse(row!.custom))).toHaveLength(20);
  });

  test('users.update: a refusal changes nothing, a missing user is undefined', async () => {
    const b = await branch('users-refuse');
    await store.users.insert(
      user({ branch_id: b.id, external_id: 'r', first_name: 'Ann' }),
      TEST_AUDIT,
    );
    await expect(
      store.users.update(
        b.id,
        'r',
        () => {
          throw new Error('refused');
        },
        TEST_AUDIT,
      ),
    ).rejects.toThrow('refused');
    expect((await store.users.find(b.id, 'r'))?.first_name).toBe('Ann');
    expect(
      await store.users.update(b.id, 'nobody', () => ({ first_name: 'x' }), TEST_AUDIT),
    ).toBeUndefined();
    await store.users.insert(
      user({ branch_id: b.id, external_id: 'taken', email_norm: 't@x.io' }),
      TEST_AUDIT,
    );
    await expect(
      store.users.update(b.id, 'r', () => ({ email: 't@x.io', email_norm: 't@x.io' }), TEST_AUDIT),
    ).rejects.toMatchObject({ field: 'email' });
  });

  test('users.list sorts as SQLite NOCASE does (ASCII folded, bytes otherwise, NULLs first)', async () => {
    const b = await branch('users-sort');
    const names = ['émile', 'Zoe', 'anna', 'Anna', 'bob', null, 'Ärger', '_x', 'Bob'];
    for (const [i, last] of names.entries()) {
      await store.users.insert(
        user({ branch_id: b.id, last_name: last, first_name: `f${i}` }),
        TEST_AUDIT,
      );
    }
    const page = await store.users.list({
      branchId: b.id,
      statuses: ['activated'],
      sort: [{ key: 'lastName', dir: 'ASC' }],
      limit: 100,
      offset: 0,
    });
    expect(page.total).toBe(names.length);
    expect(page.rows.map((r) => r.last_name)).toEqual([
      null,
      '_x',
      'anna',
      'Anna',
      'bob',
      'Bob',
      'Zoe',
      'Ärger',
      'émile',
    ]);
    const desc = await store.users.list({
      branchId: b.id,
      statuses: ['activated'],
      sort: [{ key: 'lastName', dir: 'DESC' }],
      limit: 3,
      offset: 6,
    });
    expect(desc.rows.map((r) => r.last_name)).toEqual(['Anna', '_x', null]);
  });

  test('users.list led by status pages one status after another, by offset and by cursor', async () => {
    const b = await branch('users-status-led');
    const made: { status: string; last: string }[] = [];
    for (const [i, status] of (['pending', 'activated', 'deactivated'] as const).entries()) {
      for (const last of ['Cole', 'Abel', 'Berg']) {
        await store.users.insert(
          user({ branch_id: b.id, status, last_name: last, external_id: `sl${i}${last}` }),
          TEST_AUDIT,
        );
        made.push({ status, last });
      }
    }
    for (const dir of ['ASC', 'DESC'] as const) {
      const want = [...made]
        .sort((x, y) =>
          x.status === y.status
            ? x.last.localeCompare(y.last)
            : (x.status < y.status ? -1 : 1) * (dir === 'ASC' ? 1 : -1),
        )
        .map((u) => `${u.status} ${u.last}`);
      const filter = {
        branchId: b.id,
        statuses: ['activated', 'pending', 'deactivated'] as ListFilter['statuses'],
        sort: [
          { key: 'status', dir },
          { key: 'lastName', dir: 'ASC' },
        ] as ListFilter['sort'],
        limit: 2,
      };
      const shown = (p: { rows: { status: string; last_name: string | null }[] }) =>
        p.rows.map((r) => `${r.status} ${r.last_name}`);
      const byOffset: string[] = [];
      for (let offset = 0; offset < made.length; offset += 2)
        byOffset.push(...shown(await store.users.list({ ...filter, offset })));
      expect(byOffset).toEqual(want);
      const byCursor: string[] = [];
      let page = await store.users.list({ ...filter, offset: 0 });
      byCursor.push(...shown(page));
      while (page.next) {
        page = await store.users.list({ ...filter, offset: 0, after: page.next });
        byCursor.push(...shown(page));
      }
      expect(byCursor).toEqual(want);
      expect(page.total).toBe(made.length);
    }
  });

  test('users.list led by status, by email or by a name pages as one sort of the whole list would, by offset and by cursor, for every second key', async () => {
    // Parts of these lists are read one at a time from other indexes (keyset.ts keysetReads):
    // each status, and the users without an email; a name led by the other name the other way
    // is read one value of the first at a time (keyset.ts groupwise), here more values than
    // GROUP_STEPS. Ties on every key, NULLs on every nullable
    // one, so each tie-break shows; rows are told apart by their external id (insertion order is
    // rowid order).
    const b = await branch('users-parts');
    type Made = {
      status: ListFilter['statuses'][number];
      last: string | null;
      first: string | null;
      email: string | null;
      ext: string | null;
      created: string;
      at: number;
    };
    const made: Made[] = [];
    const rows: [Made['status'], string | null, string | null, string | null][] = [
      ['pending', 'Cole', 'ann', null],
      ['activated', 'abel', 'Bob', 'parts-b@x.io'],
      ['deactivated', 'Berg', null, null],
      ['activated', null, 'ann', null],
      ['pending', 'Abel', 'Cy', 'parts-a@x.io'],
      ['activated', 'Cole', 'ann', null],
      ['deactivated', 'berg', 'bob', 'parts-c@x.io'],
      ['activated', 'Abel', 'Ann', null],
      ['pending', null, null, null],
      ['activated', 'Cole', 'Ann', 'parts-d@x.io'],
      // Names of one user each: a page then spans more groups than GROUP_STEPS.
      ['activated', 'Dale', 'Dee', null],
      ['pending', 'Eck', 'Eve', null],
      ['activated', 'Fox', 'Fay', null],
    ];
    for (const [i, [status, last, first, email]] of rows.entries()) {
      const ext = `p${i}`;
      const row = user({
        branch_id: b.id,
        status,
        last_name: last,
        first_name: first,
        email,
        email_norm: email,
        external_id: i === 3 ? null : ext,
      });
      await store.users.insert(row, TEST_AUDIT);
      made.push({
        status,
        last,
        first,
        email,
        ext: i === 3 ? null : ext,
        created: row.created_at,
        at: i,
      });
    }
    const fold = (s: string | null) =>
      s === null ? null : s.replace(/[A-Z]/g, (c) => c.toLowerCase());
    const value: Record<ListFilter['sort'][number]['key'], (u: Made) => string | null> = {
      lastName: (u) => fold(u.last),
      firstName: (u) => fold(u.first),
      createdAt: (u) => u.created,
      email: (u) => u.email,
      externalId: (u) => u.ext,
      status: (u) => u.status,
    };
    // NULLs first going up, last going down; then status and rowid, up.
    const compare = (a: string | null, b: string | null, dir: 'ASC' | 'DESC') =>
      a === b ? 0 : (a === null ? -1 : b === null ? 1 : a < b ? -1 : 1) * (dir === 'ASC' ? 1 : -1);
    const keys = Object.keys(value) as ListFilter['sort'][number]['key'][];
    // Pages of 3 (4 read) over these names span more groups than the steps a groupwise read
    // takes one by one, so the read of the rest after them is covered too.
    for (const name of ['firstName', 'lastName'] as const)
      expect(new Set(made.map(value[name])).size).toBeGreaterThan(GROUP_STEPS + 1);
    const shown = (p: { rows: { external_id: string | null; id: string }[] }) =>
      p.rows.map((r) => r.id);
    const ids = new Map<number, string>();
    for (const r of (
      await store.users.list({
        branchId: b.id,
        statuses: ['activated', 'pending', 'deactivated'],
        sort: [
          { key: 'createdAt', dir: 'ASC' },
          { key: 'lastName', dir: 'ASC' },
        ],
        limit: 100,
        offset: 0,
      })
    ).rows)
      ids.set(ids.size, r.id);
    for (const lead of ['status', 'email', 'firstName', 'lastName'] as const)
      for (const dir of ['ASC', 'DESC'] as const)
        for (const second of keys)
          for (const dir2 of ['ASC', 'DESC'] as const) {
            const sort: ListFilter['sort'] = [
              { key: lead, dir },
              { key: second, dir: dir2 },
            ];
            for (const [statuses, query] of [
              [['activated', 'pending', 'deactivated']],
              [['pending']],
              // A search: the names beginning with "a" (no email here has a word that does).
              [['activated', 'pending', 'deactivated'], 'a'],
            ] as [ListFilter['statuses'], string?][]) {
              const want = made
                .filter((u) => statuses.includes(u.status))
                .filter((u) => !query || [u.first, u.last].some((n) => n && /^a/i.test(n)))
                .sort(
                  (x, y) =>
                    compare(value[lead](x), value[lead](y), dir) ||
                    compare(value[second](x), value[second](y), dir2) ||
                    compare(x.status, y.status, 'ASC') ||
                    x.at - y.at,
                )
                .map((u) => ids.get(u.at));
              const filter = { branchId: b.id, statuses, sort, limit: 3, query };
              const named = `${lead}_${dir}_${second}_${dir2} of ${statuses} ${query ?? ''}`;
              const byOffset: string[] = [];
              for (let offset = 0; offset < want.length; offset += 3)
                byOffset.push(...shown(await store.users.list({ ...filter, offset })));
              expect(byOffset, named).toEqual(want);
              const byCursor: string[] = [];
              let page = await store.users.list({ ...filter, offset: 0 });
              byCursor.push(...shown(page));
              while (page.next) {
                page = await store.users.list({ ...filter, offset: 0, after: page.next });
                byCursor.push(...shown(page));
              }
              expect(byCursor, named).toEqual(want);
              expect(page.total, named).toBe(want.length);
            }
          }
  });

  test('users.list searches word prefixes, ignoring case and accents, all words required', async () => {
    const b = await branch('users-search');
    await store.users.insert(
      user({
        branch_id: b.id,
        first_name: 'Anna',
        last_name: 'Müller',
        email: 'zimmer.5@example.com',
        location: 'Berlin',
      }),
      TEST_AUDIT,
    );
    await store.users.insert(
      user({ branch_id: b.id, first_name: 'Ann', last_name: 'Lee' }),
      TEST_AUDIT,
    );
    await store.users.insert(
      user({ branch_id: b.id, first_name: 'Юлия', last_name: 'Петрова' }),
      TEST_AUDIT,
    );
    const search = async (query: string) =>
      (
        await store.users.list({
          branchId: b.id,
          statuses: ['activated'],
          query,
          sort: [{ key: 'firstName', dir: 'ASC' }],
          limit: 10,
          offset: 0,
        })
      ).rows.map((r) => r.last_name);
    expect(await search('ann')).toEqual(['Lee', 'Müller']);
    expect(await search('anna mull')).toEqual(['Müller']);
    expect(await search('MÜLLER')).toEqual(['Müller']);
    expect(await search('zimmer 5')).toEqual(['Müller']);
    expect(await search('example')).toEqual(['Müller']);
    expect(await search('ber ann')).toEqual(['Müller']);
    expect(await search('юл')).toEqual(['Петрова']);
    // One letter (SQLite: its own prefix index since migration 11).
    expect(await search('A')).toEqual(['Lee', 'Müller']);
    expect(await search('ю')).toEqual(['Петрова']);
    expect(await search('nobody')).toEqual([]);
    // Query syntax of either engine is plain text.
    expect(await search('"ann" * & | ! :* (')).toEqual(['Lee', 'Müller']);
    expect(await search('ann OR')).toEqual([]);
    expect(await search('*** ()')).toEqual([]);
  });

  test('users.list totals stay exact through concurrent inserts, status changes and refusals', async () => {
    const b = await branch('users-totals');
    const other = await branch('users-totals-other');
    await store.users.insert(user({ branch_id: other.id, status: 'pending' }), TEST_AUDIT);
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        store.users.insert(
          user({ branch_id: b.id, external_id: `t${i}`, status: i < 8 ? 'activated' : 'pending' }),
          TEST_AUDIT,
        ),
      ),
    );
    // Opposite changes at once (activated ↔ pending), a removal, and writes that change no status.
    await Promise.all([
      ...[0, 1, 2].map((i) =>
        store.users.update(b.id, `t${i}`, () => ({ status: 'pending' }), TEST_AUDIT),
      ),
      ...[8, 9].map((i) =>
        store.users.update(b.id, `t${i}`, () => ({ status: 'activated' }), TEST_AUDIT),
      ),
      store.users.update(b.id, 't3', () => ({ status: 'deleted' }), TEST_AUDIT),
      store.users.update(b.id, 't4', () => ({ first_name: 'Ann' }), TEST_AUDIT),
      store.users.update(b.id, 't5', () => ({ status: 'activated' }), TEST_AUDIT),
    ]);
    await expect(
      store.users.update(
        b.id,
        't6',
        () => {
          throw new Error('refused');
        },
        TEST_AUDIT,
      ),
    ).rejects.toThrow('refused');
    await store.users.update(b.id, 't7', () => ({ status: 'deactivated' }), TEST_AUDIT);
    const total = async (statuses: ListFilter['statuses'], branchId = b.id) =>
      (
        await store.users.list({
          branchId,
          statuses,
          sort: [{ key: 'lastName', dir: 'ASC' }],
          limit: 0,
          offset: 0,
        })
      ).total;
    // activated: t4 t5 t6 t8 t9; pending: t0 t1 t2 t10 t11; deactivated: t7.
    expect(await total(['activated'])).toBe(5);
    expect(await total(['pending'])).toBe(5);
    expect(await total(['deactivated'])).toBe(1);
    expect(await total(['activated', 'pending', 'deactivated'])).toBe(11);
    expect(await total(['pending'], other.id)).toBe(1);
  });

  test("users.list counts a search's matches up to countUpTo, then says the total is a lower bound", async () => {
    const b = await branch('users-search-cap');
    for (const last of ['Meyer', 'Miller', 'Moss', 'Lee'])
      await store.users.insert(user({ branch_id: b.id, last_name: last }), TEST_AUDIT);
    const search = (query: string, countUpTo?: number) =>
      store.users.list({
        branchId: b.id,
        statuses: ['activated'],
        query,
        sort: [{ key: 'lastName', dir: 'ASC' }],
        limit: 2,
        offset: 0,
        countUpTo,
      });
    const capped = await search('m', 2);
    expect(capped.total).toBe(2);
    expect(capped.totalExact).toBe(false);
    expect(capped.rows.map((r) => r.last_name)).toEqual(['Meyer', 'Miller']);
    expect(capped.next).toBeDefined();
    // At or under the bound, and without one, exact as before (no flag).
    for (const [query, upTo, total] of [
      ['m', 3, 3],
      ['m', undefined, 3],
      ['l', 2, 1],
    ] as const) {
      const page = await search(query, upTo);
      expect([page.total, 'totalExact' in page]).toEqual([total, false]);
    }
  });

  test('users.list gives a search the same pages whether it reads the matches whole or walks the order', async () => {
    const b = await branch('users-search-ways');
    for (const [i, [first, last, location]] of [
      ['Anna', 'Meyer', 'Berlin'],
      ['Max', 'Müller', 'Bonn'],
      ['Mia', 'Lee', 'Berlin'],
      ['Anna', 'Moss', null],
      ['Bert', 'Adams', 'Munich'],
      ['Ann', 'Meyer', 'Berlin'],
      ['Zoe', 'Zorn', 'Hamburg'],
    ].entries())
      await store.users.insert(
        user({
          branch_id: b.id,
          external_id: `w${i}`,
          first_name: first,
          last_name: last,
          location,
          status: i === 3 ? 'pending' : 'activated',
        }),
        TEST_AUDIT,
      );
    // Matches out of scope, which both ways must leave out: another status, another branch
    // (SQLite's reads of a wide scope, by the words alone, are tested in sqlite.test.ts).
    const other = await branch('users-search-ways-other');
    for (const [i, [branchId, status]] of [
      [b.id, 'deactivated'],
      [other.id, 'activated'],
    ].entries())
      await store.users.insert(
        user({
          branch_id: branchId as number,
          external_id: `out${i}`,
          first_name: 'Mara',
          last_name: 'Aachen',
          status: status as 'activated',
        }),
        TEST_AUDIT,
      );
    // Every search walks the order's index in this store: it sorts none.
    const walking = await openStore({
      dataDir,
      target: databaseTarget(database, dataDir),
      searchSortsUpTo: 0,
    });
    try {
      const pages = async (s: Store, f: Omit<ListFilter, 'branchId' | 'offset' | 'limit'>) => {
        const seen: string[][] = [];
        let after: ListFilter['after'];
        do {
          const page = await s.users.list({ ...f, branchId: b.id, limit: 2, offset: 0, after });
          seen.push(page.rows.map((r) => `${r.external_id} ${page.total}`));
          after = page.next;
        } while (after);
        const offset = await s.users.list({ ...f, branchId: b.id, limit: 2, offset: 3 });
        // Past the last match: no row, the same total.
        const past = await s.users.list({ ...f, branchId: b.id, limit: 2, offset: 50 });
        return [
          ...seen,
          offset.rows.map((r) => r.external_id),
          [`past ${past.rows.length} ${past.total}`],
        ];
      };
      const searches: [string, ListFilter['sort']][] = [
        ['m', [{ key: 'lastName', dir: 'ASC' }]],
        [
          'ann',
          [
            { key: 'lastName', dir: 'DESC' },
            { key: 'firstName', dir: 'ASC' },
          ],
        ],
        ['ber', [{ key: 'externalId', dir: 'DESC' }]],
        ['anna ber', [{ key: 'firstName', dir: 'ASC' }]],
        ['nobody', [{ key: 'lastName', dir: 'ASC' }]],
      ];
      for (const [query, sort] of searches) {
        const f: Omit<ListFilter, 'branchId' | 'offset' | 'limit'> = {
          statuses: ['activated', 'pending'],
          query,
          sort,
        };
        const few = await pages(store, f);
        expect(await pages(walking, f), query).toEqual(few);
      }
      // What both gave: the activated matches of `m` (Munich's too) by last name, ties in the
      // order they came.
      expect(
        await pages(store, {
          statuses: ['activated'],
          query: 'm',
          sort: [{ key: 'lastName', dir: 'ASC' }],
        }),
      ).toEqual([['w4 5', 'w2 5'], ['w0 5', 'w5 5'], ['w1 5'], ['w5', 'w1'], ['past 0 5']]);
    } finally {
      await walking.close();
    }
  });

  test('media: inserted within the quota as one step, so racing uploads cannot overshoot', async () => {
    const quota = await store.tenants.add('quota.example.com');
    const qb = (await store.branches.byName(quota.id, 'main'))!;
    const medium = (bytes: number): NewMediumRow => ({
      id: newObjectId(),
      tenant_id: quota.id,
      branch_id: qb.id,
      owner_id: 'o',
      file_name: 'f.bin',
      blob_key: newObjectId(),
      type: 'file',
      format: 'bin',
      mime_type: 'application/octet-stream',
      bytes,
      width: null,
      height: null,
      duration: null,
      preview_key: null,
      preview_format: null,
      preview_mime_type: null,
      preview_bytes: null,
      preview_width: null,
      preview_height: null,
      created_at: new Date().toISOString(),
    });
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, () => store.media.insert(medium(400), TEST_AUDIT, 1000)),
    );
    expect(outcomes.filter((o) => 'inserted' in o)).toHaveLength(2);
    expect(await store.media.bytesUsed(quota.id)).toBe(800);
    const listed = await store.media.list(qb.id, 10, 0);
    expect(listed.total).toBe(2);
    const [first] = listed.rows;
    expect((await store.media.placed(first!.id))?.tenant_host).toBe('quota.example.com');
    expect(await store.media.remove(first!.rowid, TEST_AUDIT)).toBe(true);
    expect(await store.media.remove(first!.rowid, TEST_AUDIT)).toBe(false);
    expect(await store.media.bytesUsed(quota.id)).toBe(400);
  });

  test('outbox: a user and their invitation commit together; due, failed and delivered', async () => {
    const b = await branch('outbox');
    const messageId = `<m.${newObjectId()}@roster.test>`;
    const invitation = { messageId, recipient: 'o@x.io', fileName: 'o.eml', message: 'Hi' };
    await expect(
      store.users.insert(user({ branch_id: b.id, email_norm: 'dup@x.io' }), TEST_AUDIT, invitation),
    ).resolves.toBeDefined();
    // A failed insert leaves no message.
    await expect(
      store.users.insert(user({ branch_id: b.id, email_norm: 'dup@x.io' }), TEST_AUDIT, {
        ...invitation,
        messageId: '<other@roster.test>',
      }),
    ).rejects.toMatchObject({ field: 'email' });
    const now = Date.now() + 1000;
    const [due, ...rest] = await store.outbox.due(now, 60_000, 50);
    expect(rest).toEqual([]);
    expect(due).toMatchObject({ messageId, recipient: 'o@x.io', attempts: 0 });
    await store.outbox.failed(due!.id, 'relay down', now + 5000);
    expect(await store.outbox.due(now, 60_000)).toEqual([]);
    expect(await store.outbox.nextDue()).toBe(now + 5000);
    const [again] = await store.outbox.due(now + 5000, 60_000);
    expect(again?.attempts).toBe(1);
    await store.outbox.delivered(again!.id);
    expect(await store.outbox.pending()).toBe(0);
    expect(await store.outbox.nextDue()).toBeUndefined();
  });

  test('rate limits: a bucket of N refilled at N a second', async () => {
    const t0 = 1_000_000;
    const waits = [];
    for (let i = 0; i < 4; i++) waits.push(await store.rateLimits.take('bucket', 3, t0));
    expect(waits).toEqual([0, 0, 0, 1]);
    expect(await store.rateLimits.take('bucket', 3, t0 + 400)).toBe(0);
    expect(await store.rateLimits.take('other', 3, t0)).toBe(0);
  });

  test('meta: the first value stays', async () => {
    expect(await store.meta.getOrCreate('k', () => 'first')).toBe('first');
    expect(await store.meta.getOrCreate('k', () => 'second')).toBe('first');
  });
});
