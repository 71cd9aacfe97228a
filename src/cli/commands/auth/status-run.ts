/** The body of `roster auth status`: resolve the settings, ask the service, print. */
import { ApiError } from '../../../client/errors.js';
import { apiClient, resolveSettings } from '../../client.js';
import type { Deps, GlobalOptions } from '../../context.js';
import { print } from '../../context.js';
import { CliError, EXIT } from '../../errors.js';
import { forPeople, renderOne, resolveFormat } from '../../output/render.js';
import { safeText } from '../../output/text-safe.js';

export interface AuthStatus {
  profile: string | null;
  baseUrl: string;
  token: string;
  branch: { id: string; name: string; slug?: string } | null;
  scopes: string[] | null;
  tokenWorks: boolean;
  /** Why the branch or the token check says what it says. */
  note?: string;
}

export async function authStatus(globals: GlobalOptions, deps: Deps): Promise<AuthStatus> {
  const settings = await resolveSettings(globals, deps.env);
  const client = await apiClient(globals, deps);
  const base = {
    profile: settings.profile ?? null,
    baseUrl: settings.baseUrl,
    token: `from ${settings.sources.token}`,
  };
  try {
    const { scopes, ...branch } = await client.getBranch();
    return { ...base, branch, scopes: scopes ?? null, tokenWorks: true };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (err.status === 401 || err.status === 403) {
      return { ...base, branch: null, scopes: null, tokenWorks: false, note: err.serverMessage };
    }
    if (err.status !== 404) throw err;
  }
  // A service without GET /api/branch: the token is checked the way login does.
  const note = 'this service does not offer GET /api/branch, so the branch is not known';
  try {
    await client.listUsers({ limit: 1 });
    return { ...base, branch: null, scopes: null, tokenWorks: true, note };
  } catch (err) {
    if (err instanceof ApiError && err.status === 403) {
      return { ...base, branch: null, scopes: null, tokenWorks: true, note };
    }
    if (err instanceof ApiError && err.status === 401) {
      return { ...base, branch: null, scopes: null, tokenWorks: false, note: err.serverMessage };
    }
    throw err;
  }
}

export async function printAuthStatus(s: AuthStatus, globals: GlobalOptions, deps: Deps) {
  const { io } = deps;
  const format = resolveFormat(globals.output, io);
  if (forPeople(format)) {
    const rows: [string, string][] = [
      ['profile', s.profile ?? '(none: flags and environment)'],
      ['base URL', s.baseUrl],
      ['token', `${s.token} (redacted)`],
      ['branch', s.branch ? `${s.branch.name} (id ${s.branch.id})` : 'unknown'],
      ['scopes', s.scopes ? s.scopes.join(', ') : 'unknown'],
      ['token works', s.tokenWorks ? 'yes' : 'no'],
    ];
    if (s.note) rows.push(['note', s.note]);
    const width = Math.max(...rows.map(([k]) => k.length));
    for (const [k, v] of rows) print(io, `${k.padEnd(width)}  ${safeText(v)}`);
  } else {
    await renderOne(io, format, s, [
      { header: 'profile', value: (x) => x.profile },
      { header: 'baseUrl', value: (x) => x.baseUrl },
      { header: 'branch', value: (x) => x.branch?.name },
      { header: 'scopes', value: (x) => x.scopes?.join(' ') },
      { header: 'tokenWorks', value: (x) => x.tokenWorks },
    ]);
  }
  if (!s.tokenWorks) {
    throw new CliError(`the service rejected the token: ${s.note ?? ''}`.trim(), EXIT.auth);
  }
}
