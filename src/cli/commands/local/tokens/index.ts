/** `roster tokens create|list|revoke`: API tokens of a local data dir. */

import type { Command } from 'commander';
import { SCOPES } from '../../../../contract/scopes.js';
import { type Deps, note, print } from '../../../context.js';
import type { StoreOptions } from '../../../local-store.js';
import { dataOption, globalFormat } from '../options.js';

export interface CreateTokenOptions {
  name: string;
  branch: string;
  scopes: string;
  tenant: string;
  data?: string;
  database?: string;
  json?: boolean;
}

export function register(program: Command, deps: Deps) {
  const tokens = program.command('tokens').description('manage API tokens of a local data dir');

  dataOption(
    tokens
      .command('create')
      .description('create an API token (shown once; only its hash is stored)')
      .option('--name <name>', 'a label for the token', 'cli')
      .option('--branch <name>', 'the branch the token sees', 'main')
      .option('--scopes <list>', `comma-separated scopes: ${SCOPES.join(',')}`, SCOPES.join(','))
      .option('--tenant <host>', 'the tenant host name', '*')
      .option('--json', 'print {"id","token","branch","scopes"}'),
  ).action(async (opts: CreateTokenOptions) => {
    const { createToken } = await import('./run.js');
    const created = await createToken(opts, deps);
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
  });

  dataOption(tokens.command('list').description('list tokens (never their secrets)')).action(
    async (opts: StoreOptions, cmd: Command) => {
      const { listTokens } = await import('./run.js');
      await listTokens(opts, globalFormat(cmd, deps), deps);
    },
  );

  dataOption(
    tokens.command('revoke').description('revoke a token at once').argument('<id>', 'token id'),
  ).action(async (id: string, opts: StoreOptions) => {
    const { revokeToken } = await import('./run.js');
    await revokeToken(id, opts, deps);
    note(deps.io, `revoked token ${id}`);
  });
}
