/**
 * `users import FILE --photos DIR`: once the rows are in, the avatars of the rows' users come
 * from the folder exactly as `avatar sync` sets them (avatar/photo-sync.ts: the same matching,
 * the same skip of a photo an avatar was already made from, the same per-photo errors). A dry
 * run names the avatars that would change, the users it would create included.
 */
import type { ApiClient } from '../../../../client/index.js';
import { identityKey } from '../../../../contract/identity.js';
import type { UserV3 } from '../../../../contract/user.js';
import type { Plan } from '../../../../import/plan.js';
import type { PlannedRow } from '../../../../import/planned.js';
import { type Deps, note } from '../../../context.js';
import type { PhotoSyncResult, Photos } from '../avatar/photo-sync.js';

/**
 * A user a dry run would create, as the photo matcher sees it: the row's email and externalId,
 * no id yet and no avatar.
 */
export function plannedUser(row: PlannedRow): UserV3 | undefined {
  if (row.action !== 'create') return undefined;
  const email = row.changes?.email?.to ?? null;
  return {
    id: '',
    status: 'pending',
    role: null,
    createdAt: '',
    activatedAt: null,
    externalId: row.changes?.externalId?.to ?? null,
    email: email === null ? null : { value: email, source: 'import' },
    userName: null,
    config: { locale: null },
    profile: {},
  };
}

/** The branch's users that the plan's rows name (created, updated, unchanged, or done before). */
async function* rowsUsers(client: ApiClient, plan: Plan): AsyncGenerator<UserV3> {
  const { stayingKeys } = await import('../../../../import/plan.js');
  const { PHOTO_STATUSES } = await import('../avatar/photo-sync.js');
  const keys = stayingKeys(plan);
  if (keys.size === 0) return;
  for await (const user of client.iterateUsers({ status: [...PHOTO_STATUSES] })) {
    const key = plan.match === 'email' ? user.email?.value : user.externalId;
    if (key && keys.has(identityKey(plan.match, key))) yield user;
  }
}

async function* concat<T>(first: AsyncIterable<T>, rest: T[]): AsyncGenerator<T> {
  yield* first;
  yield* rest;
}

/** Where the photos' report goes beside the import's (`run.csv` → `run.csv.photos.json`). */
export const photoReportPath = (report: string) => `${report}.photos.json`;

/**
 * Syncs the avatars of the plan's users (and, in a dry run, of those it would create). With the
 * import's `report`, the photos' own (as `avatar sync --report` writes it) goes beside it.
 */
export async function importPhotos(
  photos: Photos,
  client: ApiClient,
  plan: Plan,
  planned: UserV3[],
  opts: { dryRun?: boolean; report?: string },
  deps: Deps,
): Promise<PhotoSyncResult> {
  const { syncPhotos, notePhotosUnused, photoSummary, writePhotoReport, PHOTO_CONCURRENCY } =
    await import('../avatar/photo-sync.js');
  const { avatarSessionOf } = await import('../avatar/session.js');
  const session = await avatarSessionOf(client, deps);
  const users = concat(rowsUsers(client, plan), planned);
  const result = await syncPhotos(
    photos,
    session,
    users,
    { concurrency: PHOTO_CONCURRENCY, dryRun: opts.dryRun },
    deps,
  );
  notePhotosUnused(result, (line) => note(deps.io, line), 'no user of the file');
  note(deps.io, `photos: ${photoSummary(result, opts.dryRun)}`);
  if (opts.report) {
    await writePhotoReport(photoReportPath(opts.report), result);
    note(deps.io, `the photos' results are in ${photoReportPath(opts.report)}`);
  }
  return result;
}
