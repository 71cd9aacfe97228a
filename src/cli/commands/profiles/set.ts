/** `roster profiles set [name]`: a profile's defaults for new users where the service requires a role and locale. */
import type { Command } from 'commander';
import { type Deps, type GlobalOptions, note } from '../../context.js';
import { CliError, EXIT, usageError } from '../../errors.js';
import { addressedProfile } from '../../profile-name.js';
import { globalsOf } from '../shared/options.js';

export interface ProfileSetOptions {
  name?: string;
  role?: string | false;
  locale?: string | false;
  globals: GlobalOptions;
}

export function register(profiles: Command, deps: Deps, runFn = runSet) {
  profiles
    .command('set')
    .description(
      "set a profile's defaults for new users (default: --profile, $ROSTER_PROFILE or the current one)",
    )
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
      runFn({ ...opts, name, globals: globalsOf(cmd) }, deps),
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
  const flag = opts.globals.profile;
  if (opts.name !== undefined && flag !== undefined && flag !== opts.name) {
    throw usageError(`profiles set ${opts.name} --profile ${flag}: name one profile, not two`);
  }
  if (opts.role === undefined && opts.locale === undefined) {
    throw usageError('nothing to set: give --role and/or --locale (or --no-role, --no-locale)');
  }
  await checkUserDefaults({
    role: opts.role === false ? undefined : opts.role,
    locale: opts.locale === false ? undefined : opts.locale,
  });
  const { openConfig } = await import('../../config.js');
  const config = await openConfig(deps.env);
  const name = addressedProfile(config, deps.env, opts.globals, opts.name);
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
