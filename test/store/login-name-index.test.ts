/**
 * The login-name index (a userName, else the email, unique per tenant: contract/identity.ts
 * loginName), on either backend: a pair that broke the rule before it is kept by the migration,
 * and each of the two can still be written; a new user taking either login is refused.
 */
import { afterAll, expect, test } from 'vitest';
import { UniqueViolationError } from '../../src/store/errors.js';
import { TEST_AUDIT } from '../helpers/audit.js';
import { sql } from '../helpers/database.js';
import {
  AFTER_LOGIN_INDEX,
  forgetMigrations,
  storeToReopen,
  UNDO_LOGIN_INDEX,
} from '../helpers/migrations.js';
import { scratch } from '../helpers/scratch.js';
import { userRow } from '../helpers/user-row.js';

const scope = scratch();
afterAll(scope.cleanup);

test('a pair made before the index is kept; each still updates; a third taking the login is refused', async () => {
  const reopenable = await storeToReopen(scope);
  const { open, branch, at } = reopenable;
  let { store } = reopenable;
  await forgetMigrations(
    store,
    1 + AFTER_LOGIN_INDEX[store.engine],
    UNDO_LOGIN_INDEX[store.engine],
  );
  // As the previous release allowed: Ann logs in with her email; Bo took it as his userName.
  const ann = userRow({ ...at, email: 'ann@example.com', email_norm: 'ann@example.com' });
  const bo = userRow({
    ...at,
    email: 'bo@example.com',
    email_norm: 'bo@example.com',
    user_name: 'ann@example.com',
    user_name_norm: 'ann@example.com',
  });
  // Written as that release wrote them: this store's insert writes columns made since.
  for (const row of [ann, bo]) {
    const columns = Object.keys(row);
    await sql(
      store,
      `INSERT INTO users (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
      ...columns.map((c) => row[c as keyof typeof row]),
    );
  }
  await store.close();

  store = await open();
  scope.defer(() => store.close());
  for (const id of [ann.id, bo.id]) {
    const row = await store.users.update(
      branch.id,
      id,
      () => ({ department: 'Moved' }),
      TEST_AUDIT,
    );
    expect(row?.department).toBe('Moved');
  }
  const third = userRow({ ...at, user_name: 'ANN@example.com', user_name_norm: 'ann@example.com' });
  await expect(store.users.insert(third, TEST_AUDIT)).rejects.toBeInstanceOf(UniqueViolationError);
  // The older of the pair holds the login; the newer sits beside it.
  const dups = await sql<{ id: string; login_dup: number | string }>(
    store,
    'SELECT id, login_dup FROM users WHERE id IN (?, ?) ORDER BY rowid',
    ann.id,
    bo.id,
  );
  expect(dups.map((d) => Number(d.login_dup) === 0)).toEqual([true, false]);
});
