/**
 * The API client a command talks through, built from flags, environment and the config file:
 *
 *   base URL: --base-url > --region de (the profile's German URL) > --profile's > ROSTER_BASE_URL
 *             > the profile (ROSTER_PROFILE, else the current one)
 *   token:    --profile's > ROSTER_TOKEN > the profile; a profile's token goes only to that
 *             profile's origins unless a person at a terminal says yes (token-binding.ts)
 *   vendor:   ROSTER_VENDOR > the profile's > what the base URL answered to before > `service`
 *   role, locale of new users (where the service requires them): the profile's
 *   cdnAuth:  ROSTER_CDN_AUTH > the profile's, when the token is the profile's > off
 *   proxy:    https_proxy/HTTPS_PROXY, http_proxy/HTTP_PROXY, no_proxy/NO_PROXY (lower case first)
 *
 * The config file is opened only when a profile is needed, so a CI job with ROSTER_BASE_URL and
 * ROSTER_TOKEN never reads it. undici loads here, on first use, not at start-up; reading the
 * config file loads no conf (config.ts).
 */
import { parseCdnAuthList } from '../client/cdn-auth.js';
import type { ApiClient, ProxySettings, RetryInfo, UserDefaults } from '../client/index.js';
import type { ConfigView, Profile } from './config.js';
import { type Deps, type GlobalOptions, note, onCleanup } from './context.js';
import { CliError, EXIT, usageError } from './errors.js';
import { clientMemoryMode } from './memory.js';
import { paintErr } from './output/style.js';
import { addressedProfile } from './profile-name.js';
import { allowUnbound, type Unbound, unboundToken } from './token-binding.js';
import { version } from './version.js';

export interface ClientSettings {
  baseUrl: string;
  token: string;
  vendor?: string;
  /** Hosts besides the API's origin that media downloads may send the token to; absent: off. */
  cdnAuth?: string[];
  /** The profile's role and locale for new users, where the service requires them. */
  userDefaults?: UserDefaults;
  /** The profile that supplied something, if any. */
  profile?: string;
  /** Where the base URL and token came from, for --verbose and error messages. */
  sources: { baseUrl: string; token: string; cdnAuth?: string };
  /** Things the person should hear about (a config file others can read). */
  warnings?: string[];
  /** The profile's token would go to an origin the profile was not made for (token-binding.ts). */
  unbound?: Unbound;
}

type Source = { value: string; from: string };

function checkUrl({ value, from }: Source): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {}
  if (!url || !/^https?:$/.test(url.protocol)) {
    throw usageError(
      `the base URL '${value}' (${from}) is not an http(s) URL; it looks like https://tenant.example.com/api`,
    );
  }
  return value;
}

/** `roster login` saves to the profile named by --profile/ROSTER_PROFILE, else 'default'. */
const loginHint = (explicit?: string) =>
  `run \`roster login${explicit ? ` --profile ${explicit}` : ''}\``;

/** Resolves where to connect and with which token; throws exit 3 when not logged in. */
export async function resolveSettings(
  globals: GlobalOptions,
  env: NodeJS.ProcessEnv,
  readConfig: () => Promise<ConfigView> = async () => (await import('./config.js')).readConfig(env),
): Promise<ClientSettings> {
  const explicit = globals.profile ?? env.ROSTER_PROFILE;
  const needProfile =
    explicit !== undefined ||
    globals.region !== undefined ||
    !(globals.baseUrl ?? env.ROSTER_BASE_URL) ||
    !env.ROSTER_TOKEN;

  let config: ConfigView | undefined;
  let name: string | undefined;
  let profile: Profile | undefined;
  if (needProfile) {
    config = await readConfig();
    name = addressedProfile(config, env, globals);
    profile = config.profile(name);
    if (explicit !== undefined && !profile) {
      const known = Object.keys(config.profiles());
      throw new CliError(
        `no profile '${name}' in ${config.path} (${known.length ? `profiles: ${known.join(', ')}` : 'no profiles yet'}); ${loginHint(name)}`,
        EXIT.auth,
      );
    }
  }
  const fromProfile = (value: string | undefined): Source | undefined =>
    value ? { value, from: `profile '${name}'` } : undefined;
  const flagProfile = globals.profile !== undefined;

  let regional: Source | undefined;
  if (globals.region === 'de') {
    regional = fromProfile(profile?.baseUrlDe);
    if (!regional) {
      throw usageError(
        `--region de: profile '${name}' has no German base URL; add one with \`roster login --profile ${name} --base-url-de <url>\``,
      );
    }
  }
  const baseUrl =
    (globals.baseUrl ? { value: globals.baseUrl, from: '--base-url' } : undefined) ??
    regional ??
    (flagProfile ? fromProfile(profile?.baseUrl) : undefined) ??
    (env.ROSTER_BASE_URL ? { value: env.ROSTER_BASE_URL, from: 'ROSTER_BASE_URL' } : undefined) ??
    fromProfile(profile?.baseUrl);
  const token =
    (flagProfile ? fromProfile(profile?.token) : undefined) ??
    (env.ROSTER_TOKEN ? { value: env.ROSTER_TOKEN, from: 'ROSTER_TOKEN' } : undefined) ??
    fromProfile(profile?.token);

  // A profile that does not exist (no config file yet) is no place to send anyone.
  const where = config && profile ? ` (profile '${name}' in ${config.path})` : '';
  if (!baseUrl) {
    throw new CliError(
      `no service base URL${where}: ${loginHint(explicit)}, or pass --base-url / set ROSTER_BASE_URL`,
      EXIT.auth,
    );
  }
  if (!token) {
    throw new CliError(
      `no API token${where}: ${loginHint(explicit)}, or set ROSTER_TOKEN`,
      EXIT.auth,
    );
  }
  const unbound = unboundToken(token, baseUrl, profile && name ? { name, ...profile } : undefined);
  const usedProfile = [baseUrl.from, token.from].some((f) => f.startsWith('profile'))
    ? name
    : explicit;
  // The opt-in goes with the token it was made for: a profile's hosts never get ROSTER_TOKEN.
  const cdnAuth = env.ROSTER_CDN_AUTH
    ? { value: env.ROSTER_CDN_AUTH, from: 'ROSTER_CDN_AUTH' }
    : token.from.startsWith('profile') && profile?.cdnAuth?.length
      ? { value: profile.cdnAuth.join(','), from: token.from }
      : undefined;
  return {
    baseUrl: checkUrl(baseUrl),
    token: token.value,
    vendor: env.ROSTER_VENDOR || (usedProfile ? profile?.vendor : undefined),
    ...(cdnAuth ? { cdnAuth: checkCdnAuth(cdnAuth) } : {}),
    userDefaults: usedProfile ? { role: profile?.role, locale: profile?.locale } : undefined,
    profile: usedProfile,
    sources: {
      baseUrl: baseUrl.from,
      token: token.from,
      ...(cdnAuth ? { cdnAuth: cdnAuth.from } : {}),
    },
    ...(unbound ? { unbound } : {}),
    // As ssh does with a key others can read: the tokens in it may no longer be secret.
    warnings: config?.looseMode
      ? [
          `${config.path} is mode ${config.looseMode}: other users can read the API tokens in it; run \`chmod 600 ${config.path}\` and consider replacing the tokens`,
        ]
      : [],
  };
}

function checkCdnAuth({ value, from }: Source): string[] {
  try {
    return parseCdnAuthList(value);
  } catch (err) {
    throw usageError(`cdnAuth (${from}): ${(err as Error).message}`);
  }
}

const PROXY_VARS = {
  https: ['https_proxy', 'HTTPS_PROXY'],
  http: ['http_proxy', 'HTTP_PROXY'],
  noProxy: ['no_proxy', 'NO_PROXY'],
} as const;

/**
 * The proxies of the environment, or undefined when no proxy URL is set (NO_PROXY alone changes
 * nothing). Lower case first, as curl and undici read them. `proxy.example.com:3128` without a
 * scheme means http://; anything but an http(s) proxy URL is refused rather than bypassed.
 */
export function proxyFromEnv(env: NodeJS.ProcessEnv): ProxySettings | undefined {
  const pick = (names: readonly string[]) => {
    const name = names.find((n) => env[n]);
    return name ? { name, value: env[name]!.trim() } : undefined;
  };
  const https = pick(PROXY_VARS.https);
  const http = pick(PROXY_VARS.http);
  if (!https && !http) return undefined;
  const noProxy = pick(PROXY_VARS.noProxy);
  const proxyUrl = (v: { name: string; value: string }) => {
    const value = /^[a-z][a-z0-9+.-]*:\/\//i.test(v.value) ? v.value : `http://${v.value}`;
    const url = URL.canParse(value) ? new URL(value) : undefined;
    if (!url || !/^https?:$/.test(url.protocol) || url.hostname === '') {
      const shown = v.value.replace(/\/\/[^@/]*@/, '//…@');
      throw usageError(
        `${v.name}='${shown}' is not an http(s) proxy URL; it looks like http://proxy.example.com:3128 (or http://user:password@proxy.example.com:3128)`,
      );
    }
    return value;
  };
  return {
    ...(https ? { https: proxyUrl(https) } : {}),
    ...(http ? { http: proxyUrl(http) } : {}),
    ...(noProxy ? { noProxy: noProxy.value } : {}),
    sources: { https: https?.name, http: http?.name, noProxy: noProxy?.name },
  };
}

export function retryNotice(info: RetryInfo): string {
  const seconds = (info.delayMs / 1000).toFixed(1);
  const count =
    info.untilMs === undefined
      ? `retry ${info.retry} of ${info.maxRetries}`
      : `retry ${info.retry}, for up to ${Math.round(info.untilMs / 1000)} s`;
  return `retrying ${info.method} ${info.url} in ${seconds} s (${info.reason}; ${count})`;
}

/** Builds the client for explicit settings (login checks a token before saving it). */
export async function clientFor(
  settings: Pick<ClientSettings, 'baseUrl' | 'token' | 'vendor' | 'cdnAuth' | 'userDefaults'>,
  globals: GlobalOptions,
  deps: Deps,
  extra: ClientExtras = {},
): Promise<ApiClient> {
  const { io } = deps;
  const { fileMediaMemory } = await import('./media-memory.js');
  const options = {
    ...extra,
    baseUrl: settings.baseUrl,
    token: settings.token,
    vendor: settings.vendor,
    cdnAuth: settings.cdnAuth,
    proxy: proxyFromEnv(deps.env),
    userDefaults: settings.userDefaults,
    memory: fileMediaMemory(deps.env),
    userAgent: `roster/${version()}`,
    timeoutMs: timeoutOf(globals, deps.env) * 1000,
    onTrace: globals.verbose ? (line: string) => note(io, paintErr(io, 'dim', line)) : undefined,
    onRetry: (info: RetryInfo) => note(io, paintErr(io, 'yellow', retryNotice(info))),
    sleep: deps.sleep,
  };
  // Before the first connection compiles undici's WebAssembly parser (memory.ts).
  clientMemoryMode();
  const connect = deps.connect ?? (await import('../client/index.js')).createApiClient;
  const client = await connect(options);
  onCleanup(deps, () => client.close());
  return client;
}

/**
 * How long a request may wait for the service (CONTRACT: 60 s, above the service's 30 s preview
 * deadline): --timeout, else ROSTER_TIMEOUT.
 */
export function timeoutOf(globals: GlobalOptions, env: NodeJS.ProcessEnv): number {
  if (globals.timeout !== undefined) return globals.timeout;
  const fromEnv = env.ROSTER_TIMEOUT;
  if (fromEnv === undefined || fromEnv === '') return DEFAULT_TIMEOUT_S;
  const seconds = Number(fromEnv);
  if (!(seconds > 0)) {
    throw usageError(`ROSTER_TIMEOUT must be a number of seconds above 0, got '${fromEnv}'`);
  }
  return seconds;
}

export const DEFAULT_TIMEOUT_S = 60;

/** The client for this command's flags, environment and profile. */
export async function apiClient(
  globals: GlobalOptions,
  deps: Deps,
  extra: ClientExtras = {},
): Promise<ApiClient> {
  return (await apiSession(globals, deps, extra)).client;
}

/** What a command adds to the client it asks for: a signal that ends all its requests. */
export interface ClientExtras {
  signal?: AbortSignal;
  /** Roster-Run-Id on every request (an import's or avatar sync's run, see newRunId). */
  runId?: string;
}

/** The client, and the settings it was made from (a command that records where it went). */
export async function apiSession(
  globals: GlobalOptions,
  deps: Deps,
  extra: ClientExtras = {},
): Promise<{ client: ApiClient; settings: ClientSettings }> {
  const settings = await resolveSettings(globals, deps.env);
  // Before anything is sent: a profile's token goes only to its own service unless allowed.
  if (settings.unbound) await allowUnbound(settings.unbound, deps);
  for (const w of settings.warnings ?? [])
    note(deps.io, paintErr(deps.io, 'yellow', `warning: ${w}`));
  if (globals.verbose) {
    note(
      deps.io,
      paintErr(
        deps.io,
        'dim',
        `using ${settings.baseUrl} (${settings.sources.baseUrl}), token from ${settings.sources.token} (redacted), vendor ${settings.vendor ?? 'service'}`,
      ),
    );
    if (settings.cdnAuth?.length) {
      note(
        deps.io,
        paintErr(
          deps.io,
          'dim',
          `cdnAuth: media downloads may send the token to ${settings.cdnAuth.join(', ')} (${settings.sources.cdnAuth})`,
        ),
      );
    }
    const proxy = proxyFromEnv(deps.env);
    for (const kind of ['https', 'http'] as const) {
      // As undici does: https:// URLs use the http proxy when no https one is set.
      const used = kind === 'https' && !proxy?.https ? 'http' : kind;
      const url = proxy?.[used];
      if (!url) continue;
      const except = proxy.noProxy ? `, except ${proxy.noProxy} (${proxy.sources?.noProxy})` : '';
      note(
        deps.io,
        paintErr(
          deps.io,
          'dim',
          `${kind}:// URLs go through the proxy ${new URL(url).origin} (${proxy.sources?.[used]})${except}`,
        ),
      );
    }
  }
  return { client: await clientFor(settings, globals, deps, extra), settings };
}
