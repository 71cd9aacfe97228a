/** `roster tenants set <host>`: a tenant's settings (its public URL). */
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
      .addHelpText(
        'after',
        "\nWithout a public URL, a named tenant's links use its own host name (never the Host header).",
      ),
  ).action((host: string, opts: Omit<TenantSetOptions, 'host'>) => runFn({ ...opts, host }, deps));
}

export async function runSet(opts: TenantSetOptions, deps: Deps): Promise<void> {
  const { host } = opts;
  if (opts.publicUrl === undefined) {
    throw usageError('nothing to set: give --public-url URL or --no-public-url');
  }
  const url = opts.publicUrl === false ? null : parsePublicUrl(opts.publicUrl);
  await withStore(opts, deps, async (store) => {
    if (!(await store.tenants.setPublicUrl(host.trim().toLowerCase(), url))) {
      throw new CliError(`no tenant '${host}' (see \`roster tenants list\`)`, EXIT.notFound);
    }
  });
  note(
    deps.io,
    url ? `tenant '${host}' now links to ${url}` : `tenant '${host}' has no public URL`,
  );
}
