/**
 * Pollution fuzz (#46): generated PATCH and filter requests whose paths or value keys carry a
 * hostile segment (`__proto__`, `constructor`, `prototype`, in any case, in brackets, after a
 * URN, percent-encoded once or twice, nested at any depth) against a real server in this
 * process. Every one is a 400 that applies nothing; after each batch Object.prototype is as it
 * was and a clean write still succeeds. ~2,000 requests, a few seconds.
 */
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import { watchPrototype } from '../../helpers/prototype-watch.js';
import { ENTERPRISE, PATCH_OP, ROSTER_EXT, scimClient, scimUser } from '../../helpers/scim.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let scim: ReturnType<typeof scimClient>;
let id: string;
/** The user's version as the clean writes so far made it. */
let version = 1;
const watch = watchPrototype();

beforeAll(async () => {
  server = await startServer();
  scim = scimClient(server);
  id = (await scim('POST', '/Users', scimUser('fuzz'))).json.id;
});
afterEach(() => watch.restore());
afterAll(() => server.close());

const percent = (c: string) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;

/** A hostile name: case mixed, some characters percent-encoded (twice, sometimes). */
const hostile = fc
  .tuple(
    fc.mixedCase(fc.constantFrom('__proto__', 'constructor', 'prototype')),
    // One character in four, where a 0 falls.
    fc.array(fc.nat(3), { minLength: 11, maxLength: 11 }),
    fc.boolean(),
  )
  .map(([name, encode, twice]) =>
    [...name]
      .map((c, i) => (encode[i] === 0 ? percent(c) : c))
      .join('')
      .replace(/%/g, twice ? '%25' : '%'),
  );
const plain = fc.constantFrom('name', 'emails', 'title', 'value', 'givenName', 'x', 'polluted');
const urn = fc.constantFrom(ROSTER_EXT, ENTERPRISE, 'urn:ietf:params:scim:schemas:core:2.0:User');

/** A path with a hostile segment somewhere in it. */
const hostilePath = fc.oneof(
  fc.tuple(hostile, plain).map(([h, p]) => `${h}.${p}`),
  fc.tuple(plain, hostile).map(([p, h]) => `${p}.${h}`),
  fc.tuple(plain, hostile).map(([p, h]) => `${p}[${h} eq "v"].value`),
  fc.tuple(plain, hostile).map(([p, h]) => `${p}[type eq "work"].${h}`),
  fc.tuple(plain, hostile).map(([p, h]) => `${p}[${h} pr]`),
  fc.tuple(urn, hostile).map(([u, h]) => `${u}:${h}`),
  fc.tuple(urn, hostile, plain).map(([u, h, p]) => `${u}:${h}.${p}`),
  fc.tuple(hostile, hostile, plain).map(([a, b, p]) => `${a}.${b}.${p}`),
);

/** A value holding a hostile key at some depth, as JSON text (so `__proto__` is a key). */
const hostileValue = fc
  .tuple(hostile, fc.array(fc.oneof(plain, fc.constant('[]')), { maxLength: 4 }))
  .map(([h, around]) =>
    around.reduceRight(
      (inner, k) => (k === '[]' ? `[${inner}]` : `{${JSON.stringify(k)}:${inner}}`),
      `{${JSON.stringify(h)}:{"polluted":"yes"}}`,
    ),
  );

const op = fc.constantFrom('add', 'replace', 'remove', 'Add', 'Replace');
const clean = '{"op":"replace","path":"title","value":"clean"}';
/** A PatchOp body as JSON text: its hostile op among clean ones. */
const hostilePatch = fc
  .tuple(
    fc.oneof(
      fc
        .tuple(op, hostilePath)
        .map(([o, p]) => `{"op":"${o}","path":${JSON.stringify(p)},"value":"yes"}`),
      fc
        .tuple(fc.constantFrom('add', 'replace'), hostileValue)
        .map(([o, v]) => `{"op":"${o}","value":${v.startsWith('[') ? `{"emails":${v}}` : v}}`),
      fc
        .tuple(op, plain, hostileValue)
        .map(([o, p, v]) => `{"op":"${o}","path":"${p}","value":${v}}`),
    ),
    fc.nat(2),
  )
  .map(([bad, before]) => {
    const ops = [...Array(before).fill(clean), bad, clean];
    return `{"schemas":["${PATCH_OP}"],"Operations":[${ops.join(',')}]}`;
  });

const compare = fc.constantFrom('eq "x"', 'pr', 'sw "a"', 'ne "y"');
const hostileFilter = fc
  .tuple(
    fc.oneof(
      fc.tuple(hostilePath, compare).map(([p, c]) => `${p} ${c}`),
      fc.tuple(plain, hostile).map(([p, h]) => `${p}[${h} eq "x"]`),
    ),
    fc.constantFrom('%s', 'userName eq "a" or %s', 'not (%s)', '%s and active eq true'),
  )
  .map(([f, around]) => around.replace('%s', f));

async function expectServerUnharmed() {
  expect(watch.changes()).toEqual([]);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  const res = await scim('PATCH', `/Users/${id}`, {
    schemas: [PATCH_OP],
    Operations: [{ op: 'replace', path: 'title', value: `clean-${version}` }],
  });
  expect(res.status, res.text).toBe(200);
  version += 1;
  // Nothing of any refused request applied: only the clean writes moved the version.
  expect(res.json.meta.version).toBe(`W/"${version}"`);
}

/** Sends a batch, a few at a time, and answers each response with its request. */
async function sendAll<T>(items: T[], send: (item: T) => ReturnType<typeof scim>) {
  const out: { item: T; res: Awaited<ReturnType<typeof scim>> }[] = [];
  for (let i = 0; i < items.length; i += 10) {
    const slice = items.slice(i, i + 10);
    const answers = await Promise.all(slice.map(send));
    answers.forEach((res, j) => {
      out.push({ item: slice[j]!, res });
    });
  }
  return out;
}

test('PATCH: ~1,200 hostile bodies, each 400 invalidPath or invalidValue, none applied', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(hostilePatch, { minLength: 50, maxLength: 50 }), async (batch) => {
      for (const { item, res } of await sendAll(batch, (b) => scim('PATCH', `/Users/${id}`, b))) {
        expect(res.status, item).toBe(400);
        expect(['invalidPath', 'invalidValue'], item).toContain(res.json.scimType);
      }
      await expectServerUnharmed();
    }),
    { numRuns: 24 },
  );
});

test('filters: ~800 hostile attribute paths, each 400 invalidFilter', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(hostileFilter, { minLength: 50, maxLength: 50 }), async (batch) => {
      const send = (f: string) => scim('GET', `/Users?filter=${encodeURIComponent(f)}`);
      for (const { item, res } of await sendAll(batch, send)) {
        expect(res.status, item).toBe(400);
        expect(res.json.scimType, item).toBe('invalidFilter');
      }
      await expectServerUnharmed();
    }),
    { numRuns: 16 },
  );
});
