/**
 * `avatar sync DIR`: every user of the branch (activated, pending, deactivated) against the
 * folder (photo-sync.ts), then the results as a table, the photos that matched nobody, and
 * `--report FILE` with the users still without a photo.
 */
import { type Deps, note } from '../../../context.js';
import { renderList, resolveFormat } from '../../../output/render.js';
import {
  notePhotosUnused,
  openPhotos,
  PHOTO_STATUSES,
  photoSummary,
  photoVerdict,
  syncPhotos,
  writePhotoReport,
} from './photo-sync.js';
import { avatarSession } from './session.js';
import type { SyncOptions } from './sync.js';

export async function syncAvatars(opts: SyncOptions, deps: Deps): Promise<void> {
  const { io } = deps;
  const format = resolveFormat(opts.globals.output, io);
  const photos = await openPhotos(opts.dir, opts.photoName);
  // One Roster-Run-Id for every request of the sync: its events list as one (events list --run).
  const { newRunId } = await import('../../../../contract/events.js');
  const session = await avatarSession(opts.globals, deps, { runId: newRunId() });
  const users = session.client.iterateUsers({ status: [...PHOTO_STATUSES] });
  const result = await syncPhotos(photos, session, users, opts, deps);

  await renderList(io, format, result.rows, [
    { header: 'user', value: (r) => r.user },
    { header: 'email', value: (r) => r.email },
    { header: 'result', value: (r) => r.result },
    { header: 'photo', value: (r) => r.photo },
    { header: 'error', value: (r) => r.error },
  ]);
  notePhotosUnused(result, (line) => note(io, line), 'no user');
  if (opts.report) await writePhotoReport(opts.report, result);
  note(io, photoSummary(result, opts.dryRun));
  const verdict = photoVerdict(result);
  if (verdict) throw verdict;
}
