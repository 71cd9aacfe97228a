/** `roster tokens create`: an API token of a local data dir (its secret is shown once). */
import type { Command } from 'commander';
import { splitList } from '../../../../contract/list.js';
import { isScope, SCOPES, type Scope } from '../../../../contract/scopes.js';
import { type Deps, note, print } from '../../../context.js';
import { usageError } from '../../../errors.js';
import { withStore } from '../../../local-store.js';
import { dataOption } from '../options.js';
import { findBranch } from '../tenancy.js';

export interface CreateTokenOptions {
  name: string;
  branch: string;
  scopes: string;
  tenant: string;
  data?: string;
  database?: string;
  json?: boolean;
}

export function register(tokens: Command, deps: Deps, runFn = runCreate) {
  dataOption(
    tokens
      .command('create')
      .description('create an API token (shown once; only its hash is stored)')
      .option('--name <name>', 'a label for the token', 'cli')
      .option('--branch <name>', 'the branch the token sees', 'main')
      .option('--scopes <list>', `comma-separated scopes: ${SCOPES.join(',')}`, SCOPES.join(','))
      .option('--tenant <host>', 'the tenant host name', '*')
      .option('--json', 'print {"id","token","branch","scopes"}'),
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
  const scopes = parseScopes(opts.scopes);
  const created = await withStore(opts, deps, async (store) => {
    const branch = await findBranch(store, opts.tenant, opts.branch);
    const { token, secret } = await store.tokens.create(branch.id, opts.name, scopes);
    return { id: token.id, token: secret, branch: branch.name, scopes };
  });
  if (opts.json) {
    print(deps.io, JSON.stringify(created));
  } else {
    print(deps.io, created.token);
    note(
      deps.io,
      `token ${created.id} for branch '${created.branch}' (${created.scopes.join(', ')})`,
    );
    note(deps.io, 'it is shown only now; use it with `roster login --token <token>`');
  }
}
