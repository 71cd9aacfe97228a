import { splitList } from '../../../../contract/list.js';
import { isScope, type Scope } from '../../../../contract/scopes.js';
import type { Deps } from '../../../context.js';
import { CliError, EXIT, usageError } from '../../../errors.js';
import type { StoreOptions } from '../../../local-store.js';
import { withStore } from '../../../local-store.js';
import { type Format, renderList } from '../../../output/render.js';
import { findBranch } from '../tenancy.js';
import type { CreateTokenOptions } from './index.js';

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

export function createToken(opts: CreateTokenOptions, deps: Deps) {
  const scopes = parseScopes(opts.scopes);
  return withStore(opts, deps, async (store) => {
    const branch = await findBranch(store, opts.tenant, opts.branch);
    const { token, secret } = await store.tokens.create(branch.id, opts.name, scopes);
    return { id: token.id, token: secret, branch: branch.name, scopes };
  });
}

export function listTokens(opts: StoreOptions, format: Format, deps: Deps) {
  return withStore(opts, deps, async (store) =>
    renderList(deps.io, format, await store.tokens.list(), [
      { header: 'id', value: (t) => t.id },
      { header: 'name', value: (t) => t.name },
      { header: 'tenant', value: (t) => t.tenant },
      { header: 'branch', value: (t) => t.branch },
      { header: 'scopes', value: (t) => t.scopes.join(',') },
      { header: 'created', value: (t) => t.createdAt },
      { header: 'revoked', value: (t) => t.revokedAt ?? '' },
    ]),
  );
}

export function revokeToken(id: string, opts: StoreOptions, deps: Deps) {
  return withStore(opts, deps, async (store) => {
    if (!(await store.reserve.whenFull(() => store.tokens.revoke(id)))) {
      throw new CliError(
        `no live token with id '${id}' (see \`roster tokens list\`)`,
        EXIT.notFound,
      );
    }
  });
}
