/** `roster users avatar show <user>`: the avatar's images (URLs, sizes); `--download DIR` saves them. */
import type { Command } from 'commander';
import type { ApiClient } from '../../../../client/index.js';
import type { Deps, GlobalOptions } from '../../../context.js';
import { note, onCleanup } from '../../../context.js';
import { renderList, resolveFormat } from '../../../output/render.js';
import { globalsOf } from '../../shared/options.js';
import type { ImageRow } from './format.js';

export interface ShowOptions {
  user: string;
  download?: string;
  force?: boolean;
  globals: GlobalOptions;
}

export function register(avatar: Command, deps: Deps, runFn = runShow) {
  avatar
    .command('show')
    .description("show a user's avatar images: URL, size, type")
    .argument('<user>', 'the user id, an externalId or an email')
    .option(
      '--download <dir>',
      'also save the images into this directory as <user id>.<image>.<ext>',
    )
    .option('--force', 'overwrite files that are already there')
    .action((user: string, o: { download?: string; force?: boolean }, cmd: Command) =>
      runFn({ user, ...o, globals: globalsOf(cmd) }, deps),
    );
}

const EXTENSION = /\.(jpe?g|png|gif|webp|tiff?|bmp|heic|avif)$/i;

/** A medium id as a medium's URL path holds it: `/cdn/<tenant>/<branch>/<id>/<file>`. */
const MEDIUM_IN_PATH = /\/([0-9a-f]{24})\/[^/]+$/;

/**
 * The thumb's and icon's dimensions, which the user answers for the original only (as the
 * interface reads them): asked of their media, where a URL names one of this service and the
 * token may read media; otherwise left out.
 */
async function addDimensions(client: ApiClient, rows: ImageRow[]) {
  const { pathOf } = await import('./media.js');
  await Promise.all(
    rows.map(async (row) => {
      if (row.width && row.height) return;
      const path = pathOf(row.url);
      const id = MEDIUM_IN_PATH.exec(path ?? '')?.[1];
      if (!id) return;
      const medium = await client.getMedium(id).catch(() => undefined);
      // The same file (not another medium that happens to have that id elsewhere).
      if (!medium || pathOf(medium.resourceInfo.url) !== path) return;
      row.width = medium.resourceInfo.width;
      row.height = medium.resourceInfo.height;
    }),
  );
}

export async function runShow(opts: ShowOptions, deps: Deps): Promise<void> {
  const format = resolveFormat(opts.globals.output, deps.io);
  const { apiClient } = await import('../../../client.js');
  const { IMAGE_COLUMNS } = await import('./format.js');
  const { pathOf } = await import('./media.js');
  const client = await apiClient(opts.globals, deps);
  const { findUser } = await import('../lookup.js');
  const user = await findUser(client, opts.user);
  const avatar = user.profile.avatar ?? {};
  const rows: ImageRow[] = (['original', 'thumb', 'icon'] as const).flatMap((image) => {
    const i = avatar[image];
    return i?.url ? [{ image, ...i }] : [];
  });
  if (rows.length === 0) note(deps.io, `user ${user.id} has no avatar`);
  await addDimensions(client, rows);
  if (opts.download !== undefined) {
    const { saveStream, targetPath } = await import('../../media/save.js');
    for (const row of rows) {
      const ext = EXTENSION.exec(pathOf(row.url) ?? '')?.[1]?.toLowerCase() ?? row.format ?? 'img';
      const elsewhere = '--download another directory';
      const target = await targetPath(
        `${opts.download}/`,
        `${user.id}.${row.image}.${ext}`,
        opts.force,
        elsewhere,
      );
      await saveStream(
        () => client.downloadUrl(row.url),
        target,
        { force: opts.force, expectedBytes: row.size, elsewhere },
        (fn) => onCleanup(deps, fn),
      );
      row.saved = target;
    }
  }
  await renderList(deps.io, format, rows, IMAGE_COLUMNS, (r) => r);
}
