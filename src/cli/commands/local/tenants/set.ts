/** `roster tenants set <host>`: a tenant's settings (its public URL, SCIM invitations). */
import type { Command } from 'commander';
import { type Deps, note } from '../../../context.js';
import { CliError, EXIT, usageError } from '../../../errors.js';
import { withStore } from '../../../local-store.js';
import { dataOption, parsePublicUrl } from '../options.js';

export interface TenantSetOptions {
  host: string;
  data?: string;
  database?: string;
  /** A URL, or false for --no-public-url. */
  publicUrl?: string | false;
  /** Whether users SCIM creates get an invitation mail. */
  scimInvitations?: boolean;
}

/** `on`/`off` (also true/false, yes/no) as a flag's value. */
export function parseOnOff(value: string): boolean {
  const v = value.trim().toLowerCase();
  if (['on', 'true', 'yes'].includes(v)) return true;
  if (['off', 'false', 'no'].includes(v)) return false;
  throw usageError(`--scim-invitations: '${value}' is not on or off`);
}

export function register(tenants: Command, deps: Deps, runFn = runSet) {
  dataOption(
    tenants
      .command('set')
      .description("change a tenant's settings")
      .argument('<host>', 'the tenant')
      .option(
        '--public-url <url>',
        'origin of every absolute URL the tenant gets (Location, media URLs), e.g. https://intranet.acme.example',
      )
      .option('--no-public-url', "build URLs from the tenant's host name again")
      .option(
        '--scim-invitations <on|off>',
        'whether users an identity provider creates through SCIM get an invitation mail (default off)',
        parseOnOff,
      )
      .addHelpText(
        'after',
        "\nWithout a public URL, a named tenant's links use its own host name (never the Host header).",
      ),
  ).action((host: string, opts: Omit<TenantSetOptions, 'host'>) => runFn({ ...opts, host }, deps));
}

export async function runSet(opts: TenantSetOptions, deps: Deps): Promise<void> {
  const { host } = opts;
  if (opts.publicUrl === undefined && opts.scimInvitations === undefined) {
    throw usageError(
      'nothing to set: give --public-url URL, --no-public-url or --scim-invitations on|off',
    );
  }
  const url =
    opts.publicUrl === undefined || opts.publicUrl === false
      ? null
      : parsePublicUrl(opts.publicUrl);
  const tenant = host.trim().toLowerCase();
  await withStore(opts, deps, async (store) => {
    const found =
      opts.publicUrl !== undefined
        ? await store.tenants.setPublicUrl(tenant, url)
        : await store.tenants.setScimInvitations(tenant, opts.scimInvitations!);
    if (found && opts.publicUrl !== undefined && opts.scimInvitations !== undefined) {
      await store.tenants.setScimInvitations(tenant, opts.scimInvitations);
    }
    if (!found) {
      throw new CliError(`no tenant '${host}' (see \`roster tenants list\`)`, EXIT.notFound);
    }
  });
  if (opts.publicUrl !== undefined) {
    note(
      deps.io,
      url ? `tenant '${host}' now links to ${url}` : `tenant '${host}' has no public URL`,
    );
  }
  if (opts.scimInvitations !== undefined) {
    note(
      deps.io,
      `users SCIM creates in tenant '${host}' ${opts.scimInvitations ? 'get' : 'get no'} invitation mail`,
    );
  }
}
