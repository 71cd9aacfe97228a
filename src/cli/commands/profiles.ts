/** `roster profiles list|use`: the saved profiles (never their tokens). */
import type { Command } from 'commander';
import { type Deps, type GlobalOptions, note } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { renderList, resolveFormat } from '../output/render.js';
import { globalsOf } from './options.js';

export interface ProfileRow {
  name: string;
  current: boolean;
  baseUrl: string;
  baseUrlDe: string | null;
  vendor: string | null;
}

export function register(program: Command, deps: Deps, run = { list: runList, use: runUse }) {
  const profiles = program.command('profiles').description('list or switch CLI profiles');
  profiles
    .command('list')
    .description('list profiles: name, base URLs, vendor (tokens are never shown)')
    .action((_opts: unknown, cmd: Command) => run.list({ globals: globalsOf(cmd) }, deps));
  profiles
    .command('use')
    .description('make a profile the current one')
    .argument('<name>', 'profile name')
    .action((name: string, _opts: unknown, cmd: Command) =>
      run.use({ name, globals: globalsOf(cmd) }, deps),
    );
}

export async function runList(opts: { globals: GlobalOptions }, deps: Deps): Promise<void> {
  const { readConfig } = await import('../config-read.js');
  const config = readConfig(deps.env);
  const current = deps.env.ROSTER_PROFILE ?? config.currentProfile();
  const rows: ProfileRow[] = Object.entries(config.profiles()).map(([name, p]) => ({
    name,
    current: name === current,
    baseUrl: p.baseUrl,
    baseUrlDe: p.baseUrlDe ?? null,
    vendor: p.vendor ?? null,
  }));
  await renderList(deps.io, resolveFormat(opts.globals.output, deps.io), rows, [
    { header: 'current', value: (r) => (r.current ? '*' : '') },
    { header: 'name', value: (r) => r.name },
    { header: 'baseUrl', value: (r) => r.baseUrl },
    { header: 'baseUrlDe', value: (r) => r.baseUrlDe },
    { header: 'vendor', value: (r) => r.vendor },
  ]);
  if (rows.length === 0) note(deps.io, 'no profiles yet: run `roster login`');
}

export async function runUse(opts: { name: string; globals: GlobalOptions }, deps: Deps) {
  const { openConfig } = await import('../config.js');
  const config = await openConfig(deps.env);
  if (!config.profile(opts.name)) {
    const known = Object.keys(config.profiles());
    throw new CliError(
      `no profile '${opts.name}' (${known.length ? `profiles: ${known.join(', ')}` : 'none yet'}); create it with \`roster login --profile ${opts.name}\``,
      EXIT.notFound,
    );
  }
  config.useProfile(opts.name);
  note(deps.io, `profile '${opts.name}' is now current`);
  if (deps.env.ROSTER_PROFILE && deps.env.ROSTER_PROFILE !== opts.name) {
    note(
      deps.io,
      `note: ROSTER_PROFILE=${deps.env.ROSTER_PROFILE} still overrides it in this shell`,
    );
  }
}
