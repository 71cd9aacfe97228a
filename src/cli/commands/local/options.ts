/** Pieces shared by the local admin commands (serve, tokens, tenants, branches, backup, copy). */
import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { usageError } from '../../errors.js';
import type { StoreOptions } from '../../local-store.js';
import { type Format, resolveFormat } from '../../output/render.js';
import { dataDirOf } from '../../paths.js';

export const dataOption = (cmd: Command) =>
  cmd
    .option('--data <dir>', 'data dir (default: $ROSTER_DATA_DIR or the platform data dir)')
    .option(
      '--database <url>',
      "the database instead of the data dir's SQLite: postgres://user:pass@host:5432/db or sqlite:<dir> (default: $ROSTER_DATABASE_URL)",
    );

/** The tenant a branch belongs to (`*`: the default tenant). */
export const tenantOption = (cmd: Command) =>
  cmd.option('--tenant <host>', 'the tenant host name', '*');

/** The global -o/--output, resolved against the TTY. */
export const globalFormat = (cmd: Command, deps: Deps): Format =>
  resolveFormat(cmd.optsWithGlobals().output as string | undefined, deps.io);

/**
 * A public URL as absolute links are built from: http(s), no query or fragment, no trailing
 * slash. `roster tenants set --public-url` and serve's --public-url.
 */
export function parsePublicUrl(value: string, flag = '--public-url'): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw usageError(`${flag}: '${value}' is not a URL (e.g. https://intranet.example.com)`);
  }
  if (!/^https?:$/.test(url.protocol) || url.search || url.hash || url.username) {
    throw usageError(
      `${flag}: '${value}' must be an http(s) URL without query, fragment or credentials`,
    );
  }
  return url.href.replace(/\/+$/, '');
}

/** The data dir's own SQLite, whatever ROSTER_DATABASE_URL says: what backup and copy read. */
export const sqliteOf = (data: string | undefined, deps: Deps): StoreOptions => ({
  data,
  database: `sqlite:${dataDirOf(data, deps.env)}`,
  blobs: `file:${dataDirOf(data, deps.env)}`,
});
