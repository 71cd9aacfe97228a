import { isScope, type Scope } from '../../contract/scopes.js';
import type { Deps } from '../context.js';
import { CliError, EXIT, usageError } from '../errors.js';
import { withStore } from '../local-store.js';
import { type Format, renderList } from '../output/render.js';
import { findBranch } from './tenancy.js';
import type { CreateTokenOptions } from './tokens.js';

export function parseScopes(list: string): Scope[] {
  const scopes = [
    ...new Set(
      list
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
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
  return withStore(opts.data, deps, (store) => {
    const branch = findBranch(store, opts.tenant, opts.branch);
    const { token, secret } = store.tokens.create(branch.id, opts.name, scopes);
    return { id: token.id, token: secret, branch: branch.name, scopes };
  });
}

export function listTokens(opts: { data?: string }, format: Format, deps: Deps) {
  return withStore(opts.data, deps, (store) =>
    renderList(deps.io, format, store.tokens.list(), [
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

export function revokeToken(id: string, opts: { data?: string }, deps: Deps) {
  return withStore(opts.data, deps, (store) => {
    if (!store.reserve.whenFull(() => store.tokens.revoke(id))) {
      throw new CliError(
        `no live token with id '${id}' (see \`roster tokens list\`)`,
        EXIT.notFound,
      );
    }
  });
}
