/**
 * `roster tokens create`: an API token of a local data dir (its secret is shown once). `--for`
 * says where it works: the REST API (default), SCIM, or both; `--for scim` prints what an admin
 * pastes into Entra ID or Okta: the SCIM URL and the token.
 */

import type { Command } from 'commander';
import { splitList } from '../../../../contract/list.js';
import { scimBaseUrl } from '../../../../contract/scim.js';
import {
  CHANNELS,
  type Channel,
  isChannel,
  isScope,
  SCOPES,
  type Scope,
} from '../../../../contract/scopes.js';
import { shellWord } from '../../../../import/shell-word.js';
import { type Deps, note, print } from '../../../context.js';
import { usageError } from '../../../errors.js';
import { withStore } from '../../../local-store.js';
import { dataOption, parsePublicUrl } from '../options.js';
import { findBranch } from '../tenancy.js';

export interface CreateTokenOptions {
  name: string;
  branch: string;
  scopes?: string;
  tenant: string;
  data?: string;
  database?: string;
  json?: boolean;
  /**
   * Where the token works, a list of `api` and `scim` (default `api`). `scim` alone: a token for
   * an identity provider (users scopes); with scim the SCIM URL is printed.
   */
  for?: string;
  /** The service's public URL, for a tenant that has none set. */
  url?: string;
}

const SCIM_SCOPES: Scope[] = ['users:read', 'users:write'];

export function register(tokens: Command, deps: Deps, runFn = runCreate) {
  dataOption(
    tokens
      .command('create')
      .description('create an API token (shown once; only its hash is stored)')
      .option('--name <name>', 'a label for the token', 'cli')
      .option('--branch <name>', 'the branch the token sees', 'main')
      .option(
        '--scopes <list>',
        `comma-separated scopes: ${SCOPES.join(',')} (default: all; with --for scim users:read,users:write)`,
      )
      .option('--tenant <host>', 'the tenant host name', '*')
      .option(
        '--for <clients>',
        "where the token works: 'api' (default), 'scim' (an identity provider: Entra ID, Okta; prints the SCIM URL too) or 'api,scim'",
      )
      .option(
        '--url <url>',
        "with --for scim: the service's public URL, where the tenant has none (`roster tenants set --public-url`)",
      )
      .option('--json', 'print {"id","token","branch","scopes"} (and "url" with --for scim)'),
  ).action((opts: CreateTokenOptions) => runFn(opts, deps));
}

/**
 * The scopes `--scopes` lists. An empty list is refused, never read as "not given": a script
 * passing `--scopes "$SCOPES"` with the variable unset would otherwise get an admin token.
 */
export function parseScopes(list: string): Scope[] {
  const scopes = splitList(list);
  if (scopes.length === 0) {
    throw usageError(`--scopes: empty list; name at least one of ${SCOPES.join(', ')}`);
  }
  const bad = scopes.filter((s) => !isScope(s));
  if (bad.length > 0) {
    throw usageError(`--scopes: unknown scope ${bad.join(', ')}; use ${SCOPES.join(', ')}`);
  }
  return scopes as Scope[];
}

/** `--for`'s list, in CHANNELS order; a usage error for an unknown or empty one. */
export function parseChannels(list: string | undefined): Channel[] {
  if (list === undefined) return ['api'];
  const given = splitList(list);
  const bad = given.filter((c) => !isChannel(c));
  if (bad.length > 0 || given.length === 0) {
    throw usageError(
      `--for: ${bad.length > 0 ? `'${bad.join("', '")}' is not a client this knows` : 'empty list'}; use --for api, --for scim or --for api,scim`,
    );
  }
  return CHANNELS.filter((c) => given.includes(c));
}

export async function runCreate(opts: CreateTokenOptions, deps: Deps): Promise<void> {
  const channels = parseChannels(opts.for);
  const scim = channels.includes('scim');
  if (opts.url !== undefined && !scim) throw usageError('--url goes with --for scim');
  const url = opts.url === undefined ? undefined : parsePublicUrl(opts.url, '--url');
  // Only a token for SCIM alone defaults to the users scopes: one for the API gets them all.
  const scimOnly = !channels.includes('api');
  const scopes =
    opts.scopes !== undefined ? parseScopes(opts.scopes) : scimOnly ? SCIM_SCOPES : [...SCOPES];
  const created = await withStore(opts, deps, async (store) => {
    const branch = await findBranch(store, opts.tenant, opts.branch);
    let scimUrl: string | undefined;
    if (scim) {
      const publicUrl = url ?? (await store.tenants.byHost(opts.tenant))?.publicUrl;
      if (!publicUrl) {
        throw usageError(
          `tenant '${opts.tenant}' has no public URL: give --url https://… (the address identity providers reach this service at), or set one with \`roster tenants set ${shellWord(opts.tenant)} --public-url URL\``,
        );
      }
      scimUrl = scimBaseUrl(publicUrl);
    }
    // Checked before the token exists: a refused command leaves no token behind.
    const { systemAudit } = await import('../../../../store/common/event-rows.js');
    const { token, secret } = await store.tokens.create(
      branch.id,
      opts.name,
      scopes,
      channels,
      systemAudit('roster tokens create'),
    );
    return {
      id: token.id,
      token: secret,
      branch: branch.name,
      scopes,
      channels,
      ...(scimUrl ? { url: scimUrl } : {}),
    };
  });
  if (opts.json) {
    // The contract's keys (and url with --for scim); where it works is in `tokens list`.
    const { channels: _, ...shown } = created;
    print(deps.io, JSON.stringify(shown));
  } else if (created.url) {
    // The two values an identity provider's provisioning page asks for, in its words.
    print(deps.io, `Tenant URL:   ${created.url}`);
    print(deps.io, `Secret Token: ${created.token}`);
    note(
      deps.io,
      `token ${created.id} for branch '${created.branch}' (${created.scopes.join(', ')}; works on ${channelsText(created.channels)}); shown only now`,
    );
  } else {
    print(deps.io, created.token);
    note(
      deps.io,
      `token ${created.id} for branch '${created.branch}' (${created.scopes.join(', ')}; works on ${channelsText(created.channels)})`,
    );
    note(deps.io, 'it is shown only now; use it with `roster login --token <token>`');
  }
}

/** Where a token works, in words: "the REST API", "SCIM", "the REST API and SCIM". */
export const channelsText = (channels: Channel[]) =>
  channels.map((c) => (c === 'api' ? 'the REST API' : 'SCIM')).join(' and ');
