/** `roster profiles list`: the saved profiles, never their tokens. */
import type { Command } from 'commander';
import { type Deps, type GlobalOptions, note } from '../../context.js';
import { renderList, resolveFormat } from '../../output/render.js';
import { globalsOf } from '../shared/options.js';

export interface ProfileRow {
  name: string;
  current: boolean;
  baseUrl: string;
  baseUrlDe: string | null;
  vendor: string | null;
  role: string | null;
  locale: string | null;
  /** The data dir whose `serve` saved the profile. */
  dataDir: string | null;
}

export function register(profiles: Command, deps: Deps, runFn = runList) {
  profiles
    .command('list')
    .description(
      'list profiles: name, base URLs, vendor, the data dir a local one serves (tokens are never shown)',
    )
    .action((_opts: unknown, cmd: Command) => runFn({ globals: globalsOf(cmd) }, deps));
}

export async function runList(opts: { globals: GlobalOptions }, deps: Deps): Promise<void> {
  const { readConfig } = await import('../../config.js');
  const config = readConfig(deps.env);
  const current = deps.env.ROSTER_PROFILE ?? config.currentProfile();
  const rows: ProfileRow[] = Object.entries(config.profiles()).map(([name, p]) => ({
    name,
    current: name === current,
    baseUrl: p.baseUrl,
    baseUrlDe: p.baseUrlDe ?? null,
    vendor: p.vendor ?? null,
    role: p.role ?? null,
    locale: p.locale ?? null,
    dataDir: p.dataDir ?? null,
  }));
  await renderList(deps.io, resolveFormat(opts.globals.output, deps.io), rows, [
    { header: 'current', value: (r) => (r.current ? '*' : '') },
    { header: 'name', value: (r) => r.name },
    { header: 'baseUrl', value: (r) => r.baseUrl },
    { header: 'baseUrlDe', value: (r) => r.baseUrlDe },
    { header: 'vendor', value: (r) => r.vendor },
    { header: 'role', value: (r) => r.role },
    { header: 'locale', value: (r) => r.locale },
    { header: 'dataDir', value: (r) => r.dataDir },
  ]);
  if (rows.length === 0) note(deps.io, 'no profiles yet: run `roster login`');
}
