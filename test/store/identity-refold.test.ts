/**
 * Users stored before email and userName compared in NFKC get their compared form refolded by
 * the migration, on either backend: found by the folded key, and a look-alike pair made before
 * the rule is kept (the older holds the key) instead of stopping the start-up.
 */

import { afterAll, expect, test } from 'vitest';
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

test('the migration refolds stored keys to NFKC; a look-alike pair keeps both users', async () => {
  const reopenable = await storeToReopen(scope);
  const { open, tenant, branch, at } = reopenable;
  let { store } = reopenable;
  // As the previous rule stored them: NFC and lower-cased, fullwidth letters left as they are.
  const zoe = userRow({ ...at, user_name: 'ＺＯＥ', user_name_norm: 'ｚｏｅ' });
  const bo = userRow({ ...at, user_name: 'bo', user_name_norm: 'bo' });
  const boTwin = userRow({ ...at, user_name: 'ｂｏ', user_name_norm: 'ｂｏ' });
  for (const row of [zoe, bo, boTwin]) await store.users.insert(row, TEST_AUDIT);
  // The database as the release before the refold left it: the refold and the login-name index
  // after it not yet run.
  await forgetMigrations(
    store,
    2 + AFTER_LOGIN_INDEX[store.engine],
    UNDO_LOGIN_INDEX[store.engine],
  );
  await store.close();

  store = await open();
  scope.defer(() => store.close());
  expect((await store.users.findBy(tenant.id, branch.id, 'userName', 'zoe'))?.id).toBe(zoe.id);
  expect((await store.users.findBy(tenant.id, branch.id, 'userName', 'bo'))?.id).toBe(bo.id);
  const twin = await sql<{ user_name_norm: string }>(
    store,
    'SELECT user_name_norm FROM users WHERE id = ?',
    boTwin.id,
  );
  expect(twin[0]?.user_name_norm).toBe('ｂｏ');
});
