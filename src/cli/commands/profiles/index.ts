/**
 * `roster profiles list|use|set|cdn-auth`: the saved profiles (never their tokens), their
 * defaults for new users where the service requires a role and locale, and cdnAuth.
 */
import type { Command } from 'commander';
import { type Deps, type GlobalOptions, note } from '../../context.js';
import { CliError, EXIT, usageError } from '../../errors.js';
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
}

export interface ProfileSetOptions {
  name?: string;
  role?: string | false;
  locale?: string | false;
  globals: GlobalOptions;
}

export function register(
  program: Command,
  deps: Deps,
  run = { list: runList, use: runUse, set: runSet, cdnAuth: runCdnAuth },
) {
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
  profiles
    .command('cdn-auth')
    .description(
      'show or set the hosts besides the API that media downloads may send the token to (cdnAuth)',
    )
    .argument(
      '[hosts...]',
      'hosts as in a URL: media.example.com, media.example.com:8443, *.media.example.com (replaces the list)',
    )
    .option('--off', 'send the token to the API only (the default)')
    .addHelpText(
      'after',
      "\nFor platforms whose media URLs need authentication on another host than the API's. The token\ngoes to these hosts only over https, and never after a redirect to another origin. Applies to\nthe --profile / ROSTER_PROFILE profile, else the current one; ROSTER_CDN_AUTH overrides it.",
    )
    .action((hosts: string[], opts: { off?: boolean }, cmd: Command) =>
      run.cdnAuth({ hosts, off: opts.off, globals: globalsOf(cmd) }, deps),
    );
  profiles
    .command('set')
    .description("set a profile's defaults for new users (default: the current profile)")
    .argument('[name]', 'profile name')
    .option(
      '--role <role>',
      'role where the service requires one: admin, editor, moderator, reader, restricted',
    )
    .option('--no-role', 'remove the default role')
    .option('--locale <xx_YY>', 'locale where the service requires one, e.g. de_DE')
    .option('--no-locale', 'remove the default locale')
    .addHelpText(
      'after',
      `
The real platform creates users only with a role and a locale: \`users invite\` and \`users import\`
use these where a row or flag gives none, e.g.
  roster profiles set acme --role reader --locale de_DE`,
    )
    .action((name: string | undefined, opts: Omit<ProfileSetOptions, 'name' | 'globals'>, cmd) =>
      run.set({ ...opts, name, globals: globalsOf(cmd) }, deps),
    );
}

/** Checks role and locale defaults with the contract's schemas (as a request would be). */
export async function checkUserDefaults(d: { role?: string; locale?: string }) {
  const { localeSchema, roleSchema } = await import('../../../contract/schemas.js');
  if (d.role !== undefined && !roleSchema.safeParse(d.role).success) {
    throw usageError(
      `--role: '${d.role}' ${roleSchema.safeParse(d.role).error?.issues[0]?.message}`,
    );
  }
  if (d.locale !== undefined && !localeSchema.safeParse(d.locale).success) {
    throw usageError(`--locale: '${d.locale}' must have the form xx_YY, for example de_DE`);
  }
  return d;
}

export async function runSet(opts: ProfileSetOptions, deps: Deps): Promise<void> {
  if (opts.role === undefined && opts.locale === undefined) {
    throw usageError('nothing to set: give --role and/or --locale (or --no-role, --no-locale)');
  }
  await checkUserDefaults({
    role: opts.role === false ? undefined : opts.role,
    locale: opts.locale === false ? undefined : opts.locale,
  });
  const { openConfig } = await import('../../config.js');
  const config = await openConfig(deps.env);
  const name = opts.name ?? deps.env.ROSTER_PROFILE ?? config.currentProfile();
  const profile = config.profile(name);
  if (!profile) {
    throw new CliError(
      `no profile '${name}'; create it with \`roster login --profile ${name}\``,
      EXIT.notFound,
    );
  }
  const next = { ...profile };
  for (const key of ['role', 'locale'] as const) {
    const value = opts[key];
    if (value === false) delete next[key];
    else if (value !== undefined) next[key] = value;
  }
  config.setProfile(name, next);
  note(
    deps.io,
    `profile '${name}': new users get role ${next.role ?? '(none)'} and locale ${next.locale ?? '(none)'} where the service requires them`,
  );
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
  }));
  await renderList(deps.io, resolveFormat(opts.globals.output, deps.io), rows, [
    { header: 'current', value: (r) => (r.current ? '*' : '') },
    { header: 'name', value: (r) => r.name },
    { header: 'baseUrl', value: (r) => r.baseUrl },
    { header: 'baseUrlDe', value: (r) => r.baseUrlDe },
    { header: 'vendor', value: (r) => r.vendor },
    { header: 'role', value: (r) => r.role },
    { header: 'locale', value: (r) => r.locale },
  ]);
  if (rows.length === 0) note(deps.io, 'no profiles yet: run `roster login`');
}

export async function runUse(opts: { name: string; globals: GlobalOptions }, deps: Deps) {
  const { openConfig } = await import('../../config.js');
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

export async function runCdnAuth(
  opts: { hosts: string[]; off?: boolean; globals: GlobalOptions },
  deps: Deps,
) {
  if (opts.off && opts.hosts.length > 0) throw usageError('give hosts or --off, not both');
  const { parseCdnAuthHost } = await import('../../../client/cdn-auth.js');
  let hosts: string[] = [];
  try {
    hosts = [...new Set(opts.hosts.map(parseCdnAuthHost))];
  } catch (err) {
    throw usageError((err as Error).message);
  }
  const { openConfig } = await import('../../config.js');
  const config = await openConfig(deps.env);
  const name = opts.globals.profile ?? deps.env.ROSTER_PROFILE ?? config.currentProfile();
  const profile = config.profile(name);
  if (!profile) {
    throw new CliError(
      `no profile '${name}'; create it with \`roster login --profile ${name}\``,
      EXIT.notFound,
    );
  }
  const api = URL.canParse(profile.baseUrl) ? new URL(profile.baseUrl).origin : profile.baseUrl;
  if (opts.off || hosts.length > 0) {
    const { cdnAuth: _old, ...rest } = profile;
    config.setProfile(name, hosts.length > 0 ? { ...rest, cdnAuth: hosts } : rest);
  }
  const now = opts.off ? [] : hosts.length > 0 ? hosts : (profile.cdnAuth ?? []);
  note(
    deps.io,
    now.length > 0
      ? `profile '${name}': media downloads send the token to ${api} and, over https, to ${now.join(', ')}`
      : `profile '${name}': cdnAuth is off; the token goes to ${api} only`,
  );
  if (deps.env.ROSTER_CDN_AUTH) {
    note(deps.io, `note: ROSTER_CDN_AUTH=${deps.env.ROSTER_CDN_AUTH} overrides it in this shell`);
  }
}
