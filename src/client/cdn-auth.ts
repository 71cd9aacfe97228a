/**
 * cdnAuth: the hosts, besides the API's own origin, that media downloads may send the API token
 * to (platforms whose media URLs need authentication). Off (no hosts) by default: the token
 * then goes to the API's origin only.
 *
 * An entry is a host as a URL writes it: `media.example.com` (default port only),
 * `media.example.com:8443` (that port only), `*.media.example.com` (any subdomain of it, default
 * port, not the name itself). The token goes to such a host only over https, unless the API's
 * own base URL is plain http (a test setup: the token travels in clear there anyway), and never
 * to a URL reached through a redirect to another origin (media.ts).
 */

/** An entry as written, checked and lower-cased; throws an Error saying what is wrong. */
export function parseCdnAuthHost(entry: string): string {
  const host = entry.trim().toLowerCase();
  const wildcard = host.startsWith('*.');
  const name = wildcard ? host.slice(2) : host;
  const problem = (why: string) =>
    new Error(
      `'${entry}' is not a cdnAuth host (${why}); write a host as in a URL: media.example.com, media.example.com:8443 or *.media.example.com`,
    );
  if (name === '' || name === '*') throw problem('name the hosts, not every host');
  if (/[/?#@\\\s]|^[a-z][a-z0-9+.-]*:\/\//.test(name)) throw problem('a host, not a URL');
  const parsed = URL.canParse(`https://${name}`) ? new URL(`https://${name}`).host : undefined;
  if (parsed !== name) {
    throw problem(parsed && parsed === name.replace(/:443$/, '') ? 'leave out :443' : 'not a host');
  }
  if (wildcard && name.includes(':')) throw problem('a wildcard takes no port');
  return host;
}

/** Parses a list (comma- or space-separated, as ROSTER_CDN_AUTH is); `off` or '' is none. */
export function parseCdnAuthList(value: string): string[] {
  const entries = value.split(/[,\s]+/).filter(Boolean);
  if (entries.length === 1 && entries[0]!.toLowerCase() === 'off') return [];
  return [...new Set(entries.map(parseCdnAuthHost))];
}

/** Why the token is not sent to `url`, or undefined when cdnAuth covers it. */
export function cdnAuthRefusal(
  hosts: readonly string[] | undefined,
  url: URL,
  api: URL,
): 'not-listed' | 'not-https' | undefined {
  const host = url.host.toLowerCase();
  const listed = (hosts ?? []).some((entry) =>
    entry.startsWith('*.')
      ? url.port === '' && host.endsWith(entry.slice(1)) && host.length > entry.length - 1
      : entry === host,
  );
  if (!listed) return 'not-listed';
  if (url.protocol !== 'https:' && api.protocol === 'https:') return 'not-https';
  return undefined;
}
