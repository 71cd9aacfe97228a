/** Run functions of `roster tenants set` and `roster tenants quota` (local admin, no HTTP). */

import type { Deps } from '../../../context.js';
import { CliError, EXIT, usageError } from '../../../errors.js';
import type { StoreOptions } from '../../../local-store.js';
import { withStore } from '../../../local-store.js';

/**
 * A public URL as absolute links are built from: http(s), no query or fragment, no trailing
 * slash. Also serve's --public-url.
 */
export function parsePublicUrl(value: string, flag = '--public-url'): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw usageError(`${flag}: '${value}' is not a URL (e.g. https://intranet.example.com)`);
  }
  if (!/^https?:$/.test(url.protocol) || url.search || url.hash || url.username) {
    throw usageError(
      `${flag}: '${value}' must be an http(s) URL without query, fragment or credentials`,
    );
  }
  return url.href.replace(/\/+$/, '');
}

export interface TenantSetOptions {
  data?: string;
  database?: string;
  /** A URL, or false for --no-public-url. */
  publicUrl?: string | false;
}

export function setTenant(host: string, opts: TenantSetOptions, deps: Deps) {
  if (opts.publicUrl === undefined) {
    throw usageError('nothing to set: give --public-url URL or --no-public-url');
  }
  const url = opts.publicUrl === false ? null : parsePublicUrl(opts.publicUrl);
  return withStore(opts, deps, async (store) => {
    if (!(await store.tenants.setPublicUrl(host.trim().toLowerCase(), url))) {
      throw new CliError(`no tenant '${host}' (see \`roster tenants list\`)`, EXIT.notFound);
    }
    return url;
  });
}

export function setQuota(host: string, bytes: number | null, opts: StoreOptions, deps: Deps) {
  return withStore(opts, deps, async (store) => {
    if (!(await store.tenants.setQuota(host.trim().toLowerCase(), bytes))) {
      throw new CliError(`no tenant '${host}' (see \`roster tenants list\`)`, EXIT.notFound);
    }
  });
}
