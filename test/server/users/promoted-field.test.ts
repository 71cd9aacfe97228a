/**
 * A custom profile field promoted to a named one (issue 43, item 3). Before the promotion its
 * values sat in `custom`; the migration that promotes it moves them into the field's column
 * (moveCustomField), and on read a named field is never shadowed by a custom value of the same
 * id, so a value written after the promotion is the one answered. `department` plays the
 * promoted field here: its values placed in `custom`, as a store before the promotion held them.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { postgresMigrations, sqliteMigrations } from '../../../src/store/migrations/render.js';
import { moveCustomField } from '../../../src/store/migrations/steps.js';
import { TEST_AUDIT } from '../../helpers/audit.js';
import { BACKEND, sql } from '../../helpers/database.js';
import { ENTERPRISE, ROSTER_EXT, scimClient } from '../../helpers/scim.js';
import { jsonBody, startServer, type TestServer, V3 } from '../../helpers/server.js';
import { userRow } from '../../helpers/user-row.js';

let server: TestServer;
let at: { tenant_id: number; branch_id: number };
beforeAll(async () => {
  server = await startServer();
  const tenant = (await server.store.tenants.byHost('*'))!;
  const branch = (await server.store.branches.byName(tenant.id, 'main'))!;
  at = { tenant_id: tenant.id, branch_id: branch.id };
});
afterAll(() => server.close());

const department = async (id: string) => {
  const res = await server.req('GET', `/api/users/${id}`, { headers: { accept: V3 } });
  expect(res.status).toBe(200);
  return res.json.profile.department;
};

test('a value written to a named field is read back, though a stale custom value has its id', async () => {
  // A stale copy under the field's key in another case is no custom field either.
  const stale = { department: 'Old', Department: 'Older', team: 'A' };
  const row = userRow({ ...at, department: 'Sales', custom: JSON.stringify(stale) });
  await server.store.users.insert(row, TEST_AUDIT);
  const updated = await server.req(
    'PUT',
    `/api/users/${row.id}`,
    jsonBody({ profile: { department: 'Support' } }),
  );
  expect(updated.status).toBe(200);
  expect(updated.json.profile.department).toBe('Support');
  expect(await department(row.id)).toBe('Support');
  const v3 = await server.req('GET', `/api/users/${row.id}`, { headers: { accept: V3 } });
  expect(Object.keys(v3.json.profile).filter((k) => /department/i.test(k))).toEqual(['department']);
  expect(v3.json.profile.team).toBe('A');
  // SCIM reads the same record: its Roster extension holds the custom fields, the department
  // is the enterprise one.
  const scim = await scimClient(server)('GET', `/Users/${row.id}`);
  expect(scim.json[ROSTER_EXT]).toEqual({ team: 'A' });
  expect(scim.json[ENTERPRISE].department).toBe('Support');
});

/** The promotion's migration step, as this backend's migration runs it. */
function promotion(): string {
  const declared = [
    { why: 'department promoted', steps: [moveCustomField('department', 'department')] },
  ];
  const [step] =
    BACKEND === 'sqlite'
      ? sqliteMigrations(declared)
      : postgresMigrations(declared, (client, text) => client.query(text));
  if (typeof step !== 'string') throw new Error('moveCustomField renders as SQL');
  return step;
}

test('promoting a custom field moves its values into the column, and a new value reads back', async () => {
  const custom = (id: string) =>
    sql<{ custom: string }>(server.store, 'SELECT custom FROM users WHERE id = ?', id).then(([r]) =>
      JSON.parse(r!.custom),
    );
  const held = userRow({ ...at, custom: JSON.stringify({ department: 'Sales', team: 'A' }) });
  // A value the column holds already (written since) is kept; the custom copy goes.
  const both = userRow({
    ...at,
    department: 'Legal',
    custom: JSON.stringify({ department: 'Old' }),
  });
  const none = userRow({ ...at, custom: JSON.stringify({ team: 'B' }) });
  for (const row of [held, both, none]) await server.store.users.insert(row, TEST_AUDIT);

  await sql(server.store, promotion());

  expect(await department(held.id)).toBe('Sales');
  expect(await custom(held.id)).toEqual({ team: 'A' });
  expect(await department(both.id)).toBe('Legal');
  expect(await custom(both.id)).toEqual({});
  expect(await department(none.id)).toBeNull();
  expect(await custom(none.id)).toEqual({ team: 'B' });
  const res = await server.req('GET', `/api/users/${held.id}`, { headers: { accept: V3 } });
  expect(res.json.profile.team).toBe('A');

  const updated = await server.req(
    'PUT',
    `/api/users/${held.id}`,
    jsonBody({ profile: { department: 'Support' } }),
  );
  expect(updated.status).toBe(200);
  expect(await department(held.id)).toBe('Support');
});
