/** `roster profiles cdn-auth [hosts...]`: the hosts besides the API that media downloads may send the token to. */
import type { Command } from 'commander';
import { type Deps, type GlobalOptions, note } from '../../context.js';
import { CliError, EXIT, usageError } from '../../errors.js';
import { addressedProfile } from '../../profile-name.js';
import { globalsOf } from '../shared/options.js';

export function register(profiles: Command, deps: Deps, runFn = runCdnAuth) {
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
      runFn({ hosts, off: opts.off, globals: globalsOf(cmd) }, deps),
    );
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
  const name = addressedProfile(config, deps.env, opts.globals);
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
