/**
 * Prototype pollution through SCIM (#46): a PATCH path, a PATCH value's keys or a filter's
 * attribute path that names `__proto__`, `constructor` or `prototype` is refused before anything
 * applies, and the process's Object.prototype stays as it was. The server is in this process,
 * so what the test reads of Object.prototype is the server's.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { ROSTER_USER } from '../../../src/server/scim/attributes.js';
import type { Operation } from '../../../src/server/scim/patch.js';
import { applyPatch } from '../../../src/server/scim/patch-apply.js';
import { watchPrototype } from '../../helpers/prototype-watch.js';
import { PATCH_OP, ROSTER_EXT, scimClient, scimUser } from '../../helpers/scim.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let scim: ReturnType<typeof scimClient>;
let id: string;
const watch = watchPrototype();

beforeAll(async () => {
  server = await startServer();
  scim = scimClient(server);
  id = (await scim('POST', '/Users', scimUser('proto'))).json.id;
});
afterEach(() => watch.restore());
afterAll(() => server.close());

/** A PatchOp body as JSON text: an object literal's `__proto__` key would not be a key. */
const patchText = (ops: string) => `{"schemas":["${PATCH_OP}"],"Operations":[${ops}]}`;

async function expectNothingChanged(version: string) {
  expect(watch.changes()).toEqual([]);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  const now = await scim('GET', `/Users/${id}`);
  expect(now.json.meta.version).toBe(version);
  // A clean write still works (the issue: after one pollution every write failed).
  const ok = await scim('PATCH', `/Users/${id}`, {
    schemas: [PATCH_OP],
    Operations: [{ op: 'replace', path: 'title', value: `T${Date.now()}` }],
  });
  expect(ok.status, ok.text).toBe(200);
}

const currentVersion = async () => (await scim('GET', `/Users/${id}`)).json.meta.version;

describe('a PATCH path naming a prototype is 400 invalidPath, and nothing applies', () => {
  const paths = [
    '__proto__.polluted',
    'constructor.prototype.polluted',
    '__PROTO__.polluted',
    'Constructor.Prototype.polluted',
    'name.__proto__',
    'name.constructor',
    'emails[type eq "work"].__proto__',
    'emails[__proto__ eq "x"].value',
    'emails[constructor.prototype pr].value',
    `${ROSTER_EXT}:__proto__`,
    `${ROSTER_EXT}:constructor`,
    'urn:ietf:params:scim:schemas:core:2.0:User:__proto__.polluted',
    'urn:x:__proto__:polluted',
    '%5F%5Fproto%5F%5F.polluted',
    '%255F%255Fproto%255F%255F.polluted',
    'constructor%2Eprototype%2Epolluted',
    'prototype',
  ];
  test.each(paths)('%s', async (path) => {
    const version = await currentVersion();
    for (const op of ['add', 'replace', 'remove', 'Add']) {
      const res = await scim(
        'PATCH',
        `/Users/${id}`,
        patchText(
          `{"op":"replace","path":"title","value":"applied"},{"op":"${op}","path":${JSON.stringify(path)},"value":"yes"}`,
        ),
      );
      expect(res.status, res.text).toBe(400);
      expect(res.json.scimType).toBe('invalidPath');
      expect(res.json.detail).toMatch(/__proto__|constructor|prototype/i);
    }
    await expectNothingChanged(version);
  });
});

describe("a PATCH value's key naming a prototype, at any depth, is 400 invalidValue", () => {
  const ops = [
    '{"op":"add","value":{"__proto__":{"polluted":"yes"}}}',
    '{"op":"replace","value":{"__proto__.polluted":"yes"}}',
    '{"op":"replace","value":{"constructor":{"prototype":{"polluted":"yes"}}}}',
    '{"op":"add","path":"name","value":{"givenName":"A","__proto__":{"polluted":"yes"}}}',
    '{"op":"add","path":"emails","value":[{"type":"work","value":"a@example.com","__proto__":{"polluted":"yes"}}]}',
    `{"op":"add","value":{"${ROSTER_EXT}":{"__proto__":"yes"}}}`,
    `{"op":"add","value":{"${ROSTER_EXT}:Prototype":"yes"}}`,
    '{"op":"add","path":"title","value":{"a":[{"b":{"CONSTRUCTOR":1}}]}}',
  ];
  test.each(ops)('%s', async (op) => {
    const version = await currentVersion();
    const res = await scim('PATCH', `/Users/${id}`, patchText(op));
    expect(res.status, res.text).toBe(400);
    expect(res.json.scimType).toBe('invalidValue');
    await expectNothingChanged(version);
  });
});

describe('a filter attribute path naming a prototype is 400 invalidFilter', () => {
  const filters = [
    '__proto__ eq "x"',
    'constructor.prototype pr',
    'emails[__PROTO__ eq "x"]',
    'urn:ietf:params:scim:schemas:core:2.0:User:constructor eq "x"',
    'userName eq "a" or prototype.polluted eq "yes"',
  ];
  test.each(filters)('%s', async (filter) => {
    const version = await currentVersion();
    const res = await scim('GET', `/Users?filter=${encodeURIComponent(filter)}`);
    expect(res.status, res.text).toBe(400);
    expect(res.json.scimType).toBe('invalidFilter');
    await expectNothingChanged(version);
  });

  test('a compared value may say constructor (it is data, never a key)', async () => {
    const res = await scim('GET', `/Users?filter=${encodeURIComponent('title eq "constructor"')}`);
    expect(res.status, res.text).toBe(200);
  });
});

describe('an operation that got past the guard changes no prototype', () => {
  // Built by hand, as patchOperations never would: the applier alone must hold.
  const payload = () => JSON.parse('{"__proto__":{"polluted":"yes"},"polluted":"own"}');
  const ops: Operation[] = [
    {
      op: 'add',
      target: { urn: ROSTER_USER, attr: '__proto__', kind: 'simple' },
      value: payload(),
      at: 'a',
    },
    { op: 'replace', target: { attr: 'name', kind: 'complex' }, value: payload(), at: 'b' },
    {
      op: 'add',
      target: { attr: 'name', kind: 'complex', sub: '__proto__' },
      value: payload(),
      at: 'c',
    },
    { op: 'add', target: { attr: 'emails', kind: 'multi' }, value: [payload()], at: 'd' },
    {
      op: 'add',
      target: { attr: 'emails', kind: 'multi', sub: '__proto__' },
      value: payload(),
      at: 'e',
    },
  ];

  test.each(ops.map((o) => [o.at, o] as const))('op %s', (_, o) => {
    const before = { schemas: [], name: { givenName: 'A' }, emails: [] };
    const after = applyPatch(before, [o]);
    expect(watch.changes()).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // Every object of the result is still an ordinary one: `__proto__` became a plain key.
    const objects = [after, after.name, after[ROSTER_USER], ...((after.emails as unknown[]) ?? [])];
    for (const x of objects.filter((v) => v && typeof v === 'object')) {
      expect(Object.getPrototypeOf(x)).toBe(Object.prototype);
    }
    expect(JSON.stringify(after)).toContain('"__proto__"');
    expect(before).toEqual({ schemas: [], name: { givenName: 'A' }, emails: [] });
  });
});
