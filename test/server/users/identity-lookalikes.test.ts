/**
 * userNames and emails that render alike are one identity: fullwidth letters compare as the
 * letters they show (NFKC), and invisible format characters (a zero-width space) are refused,
 * on REST and SCIM alike (one rule: contract/identity.ts).
 */
import { expect, test } from 'vitest';
import { CORE_USER, scimClient } from '../../helpers/scim.js';
import { jsonBody, serverForFile } from '../../helpers/server.js';

const s = await serverForFile();

const create = (body: Record<string, unknown>) =>
  s.req('POST', '/api/users', jsonBody({ sendMail: false, ...body }));
const fields = (r: { json: { details?: { field: string }[] } }) =>
  (r.json.details ?? []).map((d) => d.field);

test('a userName in fullwidth letters is the same userName: 409', async () => {
  expect((await create({ userName: 'ann.lee' })).status).toBe(201);
  const twin = await create({ userName: 'ａｎｎ.ｌｅｅ' });
  expect(twin.status, twin.text).toBe(409);
});

test('a zero-width space (or another format character) in userName or email is a 400 naming the field', async () => {
  for (const [body, field] of [
    [{ userName: 'ann\u200b.lee' }, 'userName'],
    [{ userName: 'ann\u2060' }, 'userName'],
    [{ email: 'ann\u200b@x.example' }, 'email'],
  ] as const) {
    const r = await create(body);
    expect(r.status, JSON.stringify(body)).toBe(400);
    expect(fields(r).join(), JSON.stringify(body)).toContain(field);
  }
});

test('through SCIM too: a fullwidth twin is a 409, a zero-width space a 400', async () => {
  const scim = scimClient(s);
  const user = (userName: string, n: number) => ({
    schemas: [CORE_USER],
    externalId: `look-${n}`,
    userName,
    active: true,
  });
  expect((await scim('POST', '/Users', user('bo.kim', 1))).status).toBe(201);
  expect((await scim('POST', '/Users', user('ｂｏ.ｋｉｍ', 2))).status).toBe(409);
  expect((await scim('POST', '/Users', user('bo\u200b.kim', 3))).status).toBe(400);
});
