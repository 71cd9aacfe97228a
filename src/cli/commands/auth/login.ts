/**
 * `roster login`: checks a base URL + token with one request and saves them as a profile.
 * Asks for what is missing on a terminal; scripts pass flags (`--token -` reads stdin).
 */
import type { Command } from 'commander';
import type { Profile } from '../../config.js';
import { type Deps, type GlobalOptions, interactive, note } from '../../context.js';
import { CliError, EXIT, usageError } from '../../errors.js';
import { withSpinner } from '../../output/progress.js';
import { checkProfileName } from '../../profile-name.js';
import { prompterOf } from '../../prompt.js';
import { readSecretFromStdin } from '../../stdin.js';
import { globalsOf } from '../shared/options.js';

export const DEFAULT_LOGIN_PROFILE = 'default';

export interface LoginOptions {
  token?: string;
  baseUrlDe?: string;
  vendor?: string;
  role?: string;
  locale?: string;
  globals: GlobalOptions;
}

export function register(program: Command, deps: Deps, runFn = runLogin) {
  program
    .command('login')
    .description('check an API token against the service and save it as a profile')
    .option('--token <token>', "the API token ('-' reads it from stdin; default: ROSTER_TOKEN)")
    .option('--base-url-de <url>', 'the German base URL of the same tenant (for --region de)')
    .option(
      '--vendor <word>',
      "vendor word of the media types (default: detected: GET /api, else the service's 406 answer, else the known words service and staffbase)",
    )
    .option('--role <role>', 'role of new users where the service requires one (the platform)')
    .option('--locale <xx_YY>', 'locale of new users where the service requires one, e.g. de_DE')
    .addHelpText(
      'after',
      `
Takes --base-url and --profile (default profile: '${DEFAULT_LOGIN_PROFILE}') from the global options, e.g.
  roster login --base-url https://acme.example.com/api --token "$TOKEN" --profile acme
On a terminal it asks for a missing base URL or token. The saved profile becomes the current one.
--role and --locale are the profile's defaults for \`users invite\` and \`users import\` where the
service requires them (the real platform does; change them with \`roster profiles set\`).`,
    )
    .action((opts: Omit<LoginOptions, 'globals'>, cmd: Command) =>
      runFn({ ...opts, globals: globalsOf(cmd) }, deps),
    );
}

const normalizeUrl = (url: string, flag: string) => {
  const trimmed = url.trim().replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]/i.test(trimmed)) {
    throw usageError(`${flag}: '${url}' is not an http(s) URL, e.g. https://acme.example.com/api`);
  }
  return trimmed;
};

async function tokenOf(opts: LoginOptions, deps: Deps): Promise<string> {
  if (opts.token === '-') return readSecretFromStdin(deps.io);
  const token = opts.token ?? deps.env.ROSTER_TOKEN;
  if (token) return token;
  if (!interactive(deps.io)) {
    throw usageError('--token is required when not on a terminal (or --token - to read stdin)');
  }
  return prompterOf(deps).password({ message: 'API token', required: true });
}

/**
 * Asks the URL for users without a token: the API answers 401 (or 200 where no token is needed);
 * a 404 or a web page means the URL is not the API's, and the error says which one to use.
 */
async function checkBaseUrl(baseUrl: string, globals: GlobalOptions, deps: Deps) {
  const { clientFor } = await import('../../client.js');
  const { ApiError } = await import('../../../client/errors.js');
  const client = await clientFor({ baseUrl, token: '' }, globals, deps);
  try {
    await client.listUsers({ limit: 1 });
  } catch (err) {
    if (err instanceof ApiError && (err.status === 401 || err.status === 403)) return;
    throw err;
  }
}

/** The role and locale defaults to save: the flags, checked, else what the profile had. */
async function checkedDefaults(opts: LoginOptions, existing: Profile | undefined) {
  const { checkUserDefaults } = await import('../profiles/set.js');
  const given = await checkUserDefaults({ role: opts.role, locale: opts.locale });
  const role = given.role ?? existing?.role;
  const locale = given.locale ?? existing?.locale;
  return { ...(role ? { role } : {}), ...(locale ? { locale } : {}) };
}

export async function runLogin(opts: LoginOptions, deps: Deps): Promise<void> {
  const { openConfig } = await import('../../config.js');
  const config = await openConfig(deps.env);
  const name = checkProfileName(
    opts.globals.profile ?? deps.env.ROSTER_PROFILE ?? DEFAULT_LOGIN_PROFILE,
  );
  const existing = config.profile(name);

  let baseUrl = opts.globals.baseUrl ?? deps.env.ROSTER_BASE_URL ?? existing?.baseUrl;
  if (!opts.globals.baseUrl && interactive(deps.io)) {
    baseUrl = await prompterOf(deps).input({
      message: 'Service base URL (ending in /api)',
      default: baseUrl,
      required: true,
    });
  }
  if (!baseUrl) {
    throw usageError(
      '--base-url is required when not on a terminal, e.g. --base-url https://acme.example.com/api',
    );
  }
  baseUrl = normalizeUrl(baseUrl, '--base-url');
  const baseUrlDe = opts.baseUrlDe
    ? normalizeUrl(opts.baseUrlDe, '--base-url-de')
    : existing?.baseUrlDe;
  const defaults = await checkedDefaults(opts, existing);
  const { VENDOR_WORD } = await import('../../../contract/versions.js');
  if (opts.vendor !== undefined && !VENDOR_WORD.test(opts.vendor)) {
    throw usageError(`--vendor: '${opts.vendor}' is not a vendor word (letters, digits, '-')`);
  }
  // Before anyone types a token: does this URL answer like the API?
  await checkBaseUrl(baseUrl, opts.globals, deps);
  const token = await tokenOf(opts, deps);
  if (!token) throw usageError('the token is empty');

  const { ApiError } = await import('../../../client/errors.js');
  let vendor = opts.vendor ?? existing?.vendor;
  await withSpinner(deps, `checking the token with ${baseUrl}`, async () => {
    const { clientFor } = await import('../../client.js');
    const client = await clientFor({ baseUrl, token, vendor }, opts.globals, deps);
    try {
      await client.listUsers({ limit: 1 });
    } catch (err) {
      // 403: the token is genuine but may not read users (a media-only token): still usable.
      if (!(err instanceof ApiError && err.status === 403)) throw err;
      note(deps.io, `note: the token may not list users (${err.serverMessage})`);
    }
    // The vendor word the service answered to: a 406 to the first guess names it, or one of
    // the known words did (the client steps down to them).
    if (vendor && client.http.vendor !== vendor) {
      note(deps.io, `note: the service answers to vendor '${client.http.vendor}', not '${vendor}'`);
    }
    vendor = client.http.vendor;
  }).catch((err: unknown) => {
    if (err instanceof ApiError && err.status === 401) {
      throw new CliError(
        `the service rejected the token, nothing was saved: ${err.serverMessage} (${baseUrl})`,
        EXIT.auth,
      );
    }
    throw err;
  });

  config.setProfile(name, {
    baseUrl,
    token,
    ...(baseUrlDe ? { baseUrlDe } : {}),
    ...(vendor && vendor !== 'service' ? { vendor } : {}),
    // cdnAuth was allowed for this deployment's media hosts: kept while the API stays the same.
    ...(existing?.cdnAuth && sameOrigin(existing.baseUrl, baseUrl)
      ? { cdnAuth: existing.cdnAuth }
      : {}),
    ...defaults,
  });
  config.useProfile(name);
  note(
    deps.io,
    `logged in to ${baseUrl}; saved as profile '${name}' (now current) in ${config.path}`,
  );
}

const sameOrigin = (a: string, b: string) =>
  URL.canParse(a) && URL.canParse(b) && new URL(a).origin === new URL(b).origin;
