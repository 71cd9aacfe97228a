/**
 * `users update - …` (the same change to every id read from standard input) and `--dry-run`
 * (each field's value now → after the change, from the current user; nothing written).
 */
import type { UserV3 } from '../../../contract/user.js';
import { fieldAt, isWriteOnly, userField } from '../../../contract/user-fields.js';
import type { Deps } from '../../context.js';
import { getPath, leaves } from '../../output/fields.js';
import { runBatch } from '../shared/batch.js';
import { type Changes, change, runDryRun } from '../shared/dry-run.js';
import { expandIds } from '../shared/ids.js';
import { findUser, userIdOf } from './lookup.js';
import type { Body } from './patch.js';
import type { UpdateOptions } from './update.js';

/** The fields `patch` would change in `user`, by their body paths. */
export function updateChanges(user: UserV3, patch: Body): Changes {
  const changes: Changes = {};
  for (const [path, to] of leaves(patch)) {
    const name = fieldAt(path);
    const field = name === undefined ? undefined : userField(name);
    // A secret is never answered: it would be replaced, and its value is nobody's to print.
    if (field && isWriteOnly(field)) changes[path] = { from: '(hidden)', to: '(new value)' };
    else Object.assign(changes, change(path, getPath(user, field?.read ?? path), to));
  }
  return changes;
}

export async function updateEach(opts: UpdateOptions, patch: Body, deps: Deps): Promise<void> {
  const noun = { one: 'user', many: 'users' };
  if (opts.dryRun) {
    await runDryRun(
      [opts.id],
      async (client, id) => {
        const changes = updateChanges(await findUser(client, id), patch);
        return { action: Object.keys(changes).length ? 'update' : 'unchanged', changes };
      },
      opts.globals,
      deps,
      noun,
    );
    return;
  }
  const ids = await expandIds([opts.id], deps);
  const { apiClient } = await import('../../client.js');
  const client = await apiClient(opts.globals, deps);
  await runBatch(
    ids,
    async (id) => (await client.updateUser(await userIdOf(client, id), patch)).status,
    'updated',
    opts.globals,
    deps,
    noun,
  );
}
