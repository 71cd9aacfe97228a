/** Where a request goes: an endpoint or path under the base URL, or an absolute URL. */
import type { RequestSpec } from './types.js';

/** The base URL as the client keeps it: parsed, and as text without a trailing slash. */
export function baseOf(baseUrl: string): { base: URL; baseUrl: string } {
  const base = new URL(baseUrl.replace(/\/+$/, ''));
  return { base, baseUrl: base.href.replace(/\/+$/, '') };
}

/** The request's URL: `{placeholders}` URI-encoded, query values set (undefined ones left out). */
export function targetOf(baseUrl: string, spec: RequestSpec): URL {
  let path = spec.endpoint ?? spec.url ?? '';
  for (const [key, value] of Object.entries(spec.params ?? {})) {
    path = path.replace(`{${key}}`, encodeURIComponent(value));
  }
  const url = /^https?:\/\//i.test(path) ? new URL(path) : new URL(`${baseUrl}${path}`);
  for (const [key, value] of Object.entries(spec.query ?? {})) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  return url;
}
