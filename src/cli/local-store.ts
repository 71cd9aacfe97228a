/** Local admin commands act on a data dir directly: open its store, run, close. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Store } from '../store/store.js';
import { type Deps, note } from './context.js';
import { CliError } from './errors.js';
import { dataDirOf } from './paths.js';

export async function withStore<T>(
  dataFlag: string | undefined,
  deps: Deps,
  fn: (store: Store) => T | Promise<T>,
): Promise<T> {
  const dataDir = dataDirOf(dataFlag, deps.env);
  const { DATABASE_FILE } = await import('../store/db.js');
  if (!existsSync(join(dataDir, DATABASE_FILE))) {
    throw new CliError(
      `no Roster data in ${dataDir}: start \`roster serve --data ${dataDir}\` once to create it`,
    );
  }
  const { openStore } = await import('../store/store.js');
  const store = openStore(dataDir);
  for (const w of store.permissionWarnings) note(deps.io, `warning: ${w}`);
  try {
    return await fn(store);
  } finally {
    store.close();
  }
}
