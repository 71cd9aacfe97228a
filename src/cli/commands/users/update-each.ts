/** `users update - …`: the same change to every id read from standard input. */
import type { Deps } from '../../context.js';
import { runBatch } from '../shared/batch.js';
import { expandIds } from '../shared/ids.js';
import type { Body } from './patch.js';
import type { UpdateOptions } from './update.js';

export async function updateEach(opts: UpdateOptions, patch: Body, deps: Deps): Promise<void> {
  const ids = await expandIds([opts.id], deps);
  const { apiClient } = await import('../../client.js');
  const client = await apiClient(opts.globals, deps);
  await runBatch(
    ids,
    async (id) => (await client.updateUser(id, patch)).status,
    'updated',
    opts.globals,
    deps,
  );
}
