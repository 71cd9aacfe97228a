/**
 * `roster tokens create`: an API token of a local data dir (its secret is shown once);
 * `--for scim` prints what an admin pastes into Entra ID or Okta: the SCIM URL and the token.
 */

import type { Command } from 'commander';
import { splitList } from '../../../../contract/list.js';
import { scimBaseUrl } from '../../../../contract/scim.js';
import { isScope, SCOPES, type Scope } from '../../../../contract/scopes.js';
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
  /** `scim`: a token for an identity provider (users scopes, and the SCIM URL printed). */
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
        '--for <client>',
        "'scim': a token for an identity provider (Entra ID, Okta); prints the SCIM URL too",
      )
      .option(
        '--url <url>',
        "with --for scim: the service's public URL, where the tenant has none (`roster tenants set --public-url`)",
      )
      .option('--json', 'print {"id","token","branch","scopes"} (and "url" with --for scim)'),
  ).action((opts: CreateTokenOptions) => runFn(opts, deps));
}

export function parseScopes(list: string): Scope[] {
  const scopes = splitList(list);
  const bad = scopes.filter((s) => !isScope(s));
  if (bad.length > 0 || scopes.length === 0) {
    throw usageError(
      `--scopes: unknown scope ${bad.join(', ') || '(none given)'}; use users:read, users:write, media:read, media:write`,
    );
  }
  return scopes as Scope[];
}

export async function runCreate(opts: CreateTokenOptions, deps: Deps): Promise<void> {
  if (opts.for !== undefined && opts.for !== 'scim') {
    throw usageError(`--for: '${opts.for}' is not a client this knows; use --for scim`);
  }
  const scim = opts.for === 'scim';
  if (opts.url !== undefined && !scim) throw usageError('--url goes with --for scim');
  const url = opts.url === undefined ? undefined : parsePublicUrl(opts.url, '--url');
  const scopes = opts.scopes ? parseScopes(opts.scopes) : scim ? SCIM_SCOPES : [...SCOPES];
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
      systemAudit('roster tokens create'),
    );
    return {
      id: token.id,
      token: secret,
      branch: branch.name,
      scopes,
      ...(scimUrl ? { url: scimUrl } : {}),
    };
  });
  if (opts.json) {
    print(deps.io, JSON.stringify(created));
  } else if (created.url) {
    // The two values an identity provider's provisioning page asks for, in its words.
    print(deps.io, `Tenant URL:   ${created.url}`);
    print(deps.io, `Secret Token: ${created.token}`);
    note(
      deps.io,
      `token ${created.id} for branch '${created.branch}' (${created.scopes.join(', ')}); shown only now`,
    );
  } else {
    print(deps.io, created.token);
    note(
      deps.io,
      `token ${created.id} for branch '${created.branch}' (${created.scopes.join(', ')})`,
    );
    note(deps.io, 'it is shown only now; use it with `roster login --token <token>`');
  }
}
