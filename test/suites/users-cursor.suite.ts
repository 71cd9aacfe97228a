import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SORT_KEYS } from '../../src/contract/user.js';
import { validating } from '../helpers/openapi-validation.js';
import { jsonBody, type StartServer, type TestServer, USERS_V2 } from '../helpers/server.js';

type Page = { total: number; offset: number; data: { id: string }[]; next?: string };

/**
 * Cursor (keyset) paging of GET /users, run against any server: a cursor walk gives exactly the
 * rows an offset walk gives, for every sort key and direction, with ties, NULLs, filters and a
 * query; rows written meanwhile never make a walk skip or repeat a row.
 */
export function usersCursorSuite(start: StartServer) {
  let s: TestServer;
  let token: string;
  const ALL = 'activated,pending,deactivated';

  const get = async (qs: string) =>
    s.req('GET', `/api/users${qs}`, { headers: { accept: USERS_V2 }, token });
  const add = async (body: Record<string, unknown>, status = 'activated') => {
    const r = await s.req('POST', '/api/users', {
      ...jsonBody({
        sendMail: false,
        ...(status !== 'pending' && { secret: 'password-123' }),
        ...body,
      }),
      token,
    });
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    if (status === 'deactivated') {
      await s.req('PUT', `/api/users/${r.json.id}`, { ...jsonBody({ status }), token });
    }
    return r.json.id as string;
  };

  beforeAll(async () => {
    s = validating(await start());
    // Its own branch, so the other suites' users stay out of these lists.
    token = await s.token({ branch: 'cursor' });
    const firsts = ['Anna', 'anna', 'Ben', 'Émile', null, 'Zoë', 'ben'];
    const lasts = ['Müller', 'Meyer', 'meyer', null, 'Adams', 'Zimmer'];
    const statuses = ['activated', 'activated', 'pending', 'deactivated'];
    for (let i = 0; i < 36; i++) {
      const first = firsts[i % firsts.length];
      const last = lasts[(i * 5) % lasts.length];
      await add(
        {
          // Every third user has no email (a userName instead), every fifth no externalId.
          ...(i % 3 === 0 ? { userName: `user${i}` } : { email: `u${i % 11}.${i}@example.com` }),
          ...(i % 5 !== 0 && { externalId: `x-${(i * 7) % 36}` }),
          profile: {
            ...(first && { firstName: first }),
            ...(last && { lastName: last }),
            location: i % 2 ? 'Berlin' : 'Hamburg',
          },
        },
        statuses[i % statuses.length],
      );
    }
  });
  afterAll(() => s.close());

  /** Every row's id, following `next` from the first page (checking each answer on the way). */
  const cursorWalk = async (qs: string, limit: number) => {
    const ids: string[] = [];
    let page = (await get(`?${qs}&limit=${limit}`)).json as Page;
    for (let n = 0; ; n++) {
      expect(n, 'pages').toBeLessThan(100);
      ids.push(...page.data.map((u) => u.id));
      if (!page.next) break;
      const r = await get(`?${qs}&limit=${limit}&after=${encodeURIComponent(page.next)}`);
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      page = r.json as Page;
    }
    return ids;
  };
  const offsetWalk = async (qs: string, limit: number) => {
    const ids: string[] = [];
    for (let offset = 0; ; offset += limit) {
      const page = (await get(`?${qs}&limit=${limit}&offset=${offset}`)).json as Page;
      ids.push(...page.data.map((u) => u.id));
      if (page.data.length < limit) return ids;
    }
  };

  describe('GET /api/users?after=', () => {
    test('a cursor walk gives the offset walk, for every sort key and direction, with ties and NULLs', async () => {
      // Each key first in both directions and second in both directions, after two different
      // keys: every way a key takes part in the keyset comparison, without all n² pairs.
      const n = SORT_KEYS.length;
      const walks: string[] = [];
      for (const [i, k1] of SORT_KEYS.entries()) {
        walks.push(
          `${k1}_ASC_${SORT_KEYS[(i + 1) % n]}_DESC`,
          `${k1}_DESC_${SORT_KEYS[(i + 1) % n]}_DESC`,
        );
        walks.push(
          `${k1}_DESC_${SORT_KEYS[(i + 2) % n]}_ASC`,
          `${k1}_ASC_${SORT_KEYS[(i + 2) % n]}_ASC`,
        );
      }
      for (const sort of walks) {
        const qs = `sort=${sort}&status=${ALL}`;
        const byOffset = await offsetWalk(qs, 100);
        expect(byOffset).toHaveLength(36);
        expect(await cursorWalk(qs, 7), qs).toEqual(byOffset);
      }
      expect(walks).toHaveLength(4 * n);
    });

    test('with status filters and a query, and with a page size that divides the list', async () => {
      for (const qs of [
        'status=pending',
        'status=activated,deactivated&sort=firstName_DESC_lastName_ASC',
        'query=berlin&status=activated,pending,deactivated',
        'query=mey&sort=email_ASC_createdAt_DESC&status=activated,pending,deactivated',
        'query=nobody',
      ]) {
        for (const limit of [1, 3, 9]) {
          expect(await cursorWalk(qs, limit), `${qs} limit=${limit}`).toEqual(
            await offsetWalk(qs, limit),
          );
        }
      }
    });

    test('next and Link: the same continuation; neither on the last page', async () => {
      const first = await get(`?status=${ALL}&limit=20&sort=lastName_DESC_firstName_ASC`);
      const next = first.json.next as string;
      expect(next).toMatch(/^[\w-]+\.[\w-]+$/);
      const link = /^<([^>]+)>; rel="next"$/.exec(first.headers.link!)![1]!;
      const url = new URL(link);
      expect(url.pathname).toBe('/api/users');
      expect(url.searchParams.get('after')).toBe(next);
      expect(url.searchParams.get('sort')).toBe('lastName_DESC_firstName_ASC');
      const viaLink = await get(url.search);
      const viaNext = await get(
        `?status=${ALL}&limit=20&sort=lastName_DESC_firstName_ASC&after=${encodeURIComponent(next)}`,
      );
      expect(viaLink.json).toEqual(viaNext.json);
      expect(viaNext.json).toMatchObject({ total: 36, offset: 0 });
      expect(viaNext.json.data).toHaveLength(16);
      expect(viaNext.json.next).toBeUndefined();
      expect(viaNext.headers.link).toBeUndefined();
      // An offset page gives a cursor too, so a walk may start at an offset.
      const atOffset = await get(`?status=${ALL}&limit=5&offset=30`);
      const rest = await get(
        `?status=${ALL}&limit=5&after=${encodeURIComponent(atOffset.json.next)}`,
      );
      expect(rest.json.data.map((u: { id: string }) => u.id)).toEqual(
        (await get(`?status=${ALL}&limit=5&offset=35`)).json.data.map((u: { id: string }) => u.id),
      );
    });

    test('rows written during a walk: none skipped or repeated; a deleted last row still continues', async () => {
      const qs = `status=${ALL}&sort=firstName_ASC_createdAt_DESC`;
      const before = new Set(await offsetWalk(qs, 100));
      const seen: string[] = [];
      const removed = new Set<string>();
      let page = (await get(`?${qs}&limit=5`)).json as Page;
      for (let n = 0; n < 50; n++) {
        seen.push(...page.data.map((u) => u.id));
        if (!page.next) break;
        // New users that sort before and after the position, and the page's last row removed.
        await add({ email: `early${n}@example.com`, profile: { firstName: 'Aaron' } });
        await add({ email: `late${n}@example.com`, profile: { firstName: 'Zz' } });
        const last = page.data.at(-1)!.id;
        expect((await s.req('DELETE', `/api/users/${last}`, { token })).status).toBe(202);
        removed.add(last);
        const r = await get(`?${qs}&limit=5&after=${encodeURIComponent(page.next)}`);
        expect(r.status).toBe(200);
        page = r.json as Page;
      }
      expect(new Set(seen).size).toBe(seen.length);
      for (const id of before) expect(seen, id).toContain(id);
      // The removed users were each seen once, before they went.
      expect([...removed].every((id) => seen.includes(id))).toBe(true);
    });

    test('a cursor re-encoded with an edited position and its unkeyed check recomputed is a 400 (the check is keyed)', async () => {
      const first = await get(`?status=${ALL}&limit=2`);
      const [body] = (first.json.next as string).split('.') as [string, string];
      const [binding, keys, status, rowid] = JSON.parse(Buffer.from(body, 'base64url').toString());
      const edited = Buffer.from(JSON.stringify([binding, keys, status, rowid + 1])).toString(
        'base64url',
      );
      const sum = createHash('sha256').update(edited).digest('base64url').slice(0, 12);
      const r = await get(`?status=${ALL}&limit=2&after=${encodeURIComponent(`${edited}.${sum}`)}`);
      expect(r.status).toBe(400);
      expect(r.json.details.map((d: { field: string }) => d.field)).toContain('after');
    });

    test('a changed, foreign or combined cursor is a 400 naming after', async () => {
      const first = await get(`?status=${ALL}&limit=2`);
      const next = first.json.next as string;
      const [body, sum] = next.split('.') as [string, string];
      const flipped = `${body.slice(0, 5)}${body[5] === 'A' ? 'B' : 'A'}${body.slice(6)}.${sum}`;
      const forged = `${Buffer.from('["x",[null,null],"activated",1]').toString('base64url')}.${sum}`;
      // Spellings of the same check bytes (base64 is lenient): the last character's unused low
      // bits, padding, a NUL. A cursor is the string the service gave, not one that decodes alike.
      const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      const lastAlike = B64[B64.indexOf(sum.at(-1)!) ^ 1]!;
      const alike = [`${sum.slice(0, -1)}${lastAlike}`, `${sum}=`, `${sum}==`, `${sum}\u0000`];
      const cases = [
        ...alike.map((a) => `?status=${ALL}&limit=2&after=${encodeURIComponent(`${body}.${a}`)}`),
        `?status=${ALL}&limit=2&after=${encodeURIComponent(flipped)}`,
        `?status=${ALL}&limit=2&after=${encodeURIComponent(forged)}`,
        `?status=${ALL}&limit=2&after=not-a-cursor`,
        `?status=${ALL}&limit=2&after=`,
        // Bound to its sort, status and query.
        `?status=${ALL}&limit=2&sort=email_ASC_lastName_ASC&after=${encodeURIComponent(next)}`,
        `?status=activated&limit=2&after=${encodeURIComponent(next)}`,
        `?status=${ALL}&query=anna&limit=2&after=${encodeURIComponent(next)}`,
        `?status=${ALL}&limit=2&offset=2&after=${encodeURIComponent(next)}`,
      ];
      for (const qs of cases) {
        const r = await get(qs);
        expect(r.status, qs).toBe(400);
        expect(r.json.identifier).toBe(40000);
        expect(
          r.json.details.map((d: { field: string }) => d.field),
          qs,
        ).toContain('after');
      }
      // Another branch's cursor is not this branch's.
      const other = await s.req(
        'GET',
        `/api/users?status=${ALL}&limit=2&after=${encodeURIComponent(next)}`,
        {
          headers: { accept: USERS_V2 },
        },
      );
      expect(other.status).toBe(400);
      // A limit of its own is fine: the cursor says where, not how many.
      expect((await get(`?status=${ALL}&limit=3&after=${encodeURIComponent(next)}`)).status).toBe(
        200,
      );
    });
  });
}
