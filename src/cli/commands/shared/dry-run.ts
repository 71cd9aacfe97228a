/**
 * `--dry-run` on a verb over ids: for each id what the verb would do, computed from the current
 * record (one GET each), and nothing written. The rows and exit codes are the batch's
 * (batch.ts): an id not found fails on its own.
 */
import type { ApiClient } from '../../../client/index.js';
import { type Deps, type GlobalOptions, note } from '../../context.js';
import { quoted } from '../../output/quoted.js';
import { forPeople, renderList, resolveFormat } from '../../output/render.js';
import { finishBatch, type Noun, tryEach } from './batch.js';
import { expandIds } from './ids.js';

export type Changes = Record<string, { from: unknown; to: unknown }>;

/** What a verb would do to one record: `unchanged`, or its action and the fields it changes. */
export interface Preview {
  action: string;
  changes?: Changes;
}

const shown = (v: unknown) => (v === null || v === undefined ? '(none)' : quoted(String(v)));

/** `profile.position: CEO → CTO; status: …`: a table's cell. */
export const describeChanges = (changes: Changes = {}) =>
  Object.entries(changes)
    .map(([field, { from, to }]) => `${field}: ${shown(from)} → ${shown(to)}`)
    .join('; ');

/** The change of one field, or nothing when it stays as it is. */
export const change = (field: string, from: unknown, to: unknown): Changes =>
  (from ?? null) === (to ?? null) ? {} : { [field]: { from: from ?? null, to: to ?? null } };

export async function runDryRun(
  ids: string[],
  preview: (client: ApiClient, id: string) => Promise<Preview>,
  globals: GlobalOptions,
  deps: Deps,
  noun: Noun,
): Promise<void> {
  const items = await expandIds(ids, deps);
  const format = resolveFormat(globals.output, deps.io);
  const { apiClient } = await import('../../client.js');
  const client = await apiClient(globals, deps);
  const outcome = await tryEach(
    items,
    (id) => preview(client, id),
    () => undefined,
    deps,
    !forPeople(format),
  );
  const previews = [...outcome.values];
  const rows = outcome.rows.map((r) => ({ ...r, preview: r.ok ? previews.shift() : undefined }));
  await renderList(
    deps.io,
    format,
    rows,
    [
      { header: 'id', value: (r) => r.id },
      { header: 'would', value: (r) => r.preview?.action ?? 'fail' },
      { header: 'changes', value: (r) => describeChanges(r.preview?.changes), wrap: true },
      { header: 'error', value: (r) => r.error },
    ],
    (r) => ({
      id: r.id,
      ok: r.ok,
      action: r.preview?.action ?? null,
      changes: r.preview?.changes ?? null,
      error: r.error ?? null,
    }),
  );
  const changing = rows.filter((r) => r.preview && r.preview.action !== 'unchanged').length;
  note(deps.io, `dry run: ${changing} would change; nothing was changed`);
  finishBatch(outcome, 'checked', noun, deps);
}
