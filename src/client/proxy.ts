/**
 * Proxies (company networks): which proxy a URL goes through, by the rules of undici's
 * EnvHttpProxyAgent, which does the routing (undici-proxy.ts). This copy of its rules only
 * names the proxy in traces and error messages; it loads nothing of undici.
 */

export interface ProxySettings {
  /** For http:// URLs (HTTP_PROXY). */
  http?: string;
  /** For https:// URLs (HTTPS_PROXY); without it https:// URLs use the http one, as undici does. */
  https?: string;
  /** Hosts reached directly (NO_PROXY): `host`, `.domain`, `*.domain`, `host:port`, or `*`. */
  noProxy?: string;
  /** The variable each value came from, for messages (`https_proxy`, `HTTP_PROXY`). */
  sources?: { http?: string; https?: string; noProxy?: string };
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/** Whether NO_PROXY names this host (undici's rules: suffix match on a dot, optional port). */
function bypassed(noProxy: string, url: URL): boolean {
  const value = noProxy.trim();
  if (value === '') return false;
  if (value === '*') return true;
  const host = url.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number.parseInt(url.port, 10) || DEFAULT_PORTS[url.protocol] || 0;
  for (const entry of value.split(/[,\s]/)) {
    if (!entry) continue;
    const parsed = /^(.+):(\d+)$/.exec(entry);
    const name = (parsed ? parsed[1]! : entry).replace(/^\*?\./, '').toLowerCase();
    const entryPort = parsed ? Number.parseInt(parsed[2]!, 10) : 0;
    if (entryPort && entryPort !== port) continue;
    if (host === name || host.endsWith(`.${name}`)) return true;
  }
  return false;
}

/** The proxy URL a request to `url` goes through, or undefined when it goes directly. */
export function proxyFor(settings: ProxySettings | undefined, url: URL): string | undefined {
  if (!settings) return undefined;
  const proxy = url.protocol === 'https:' ? settings.https || settings.http : settings.http;
  if (!proxy || bypassed(settings.noProxy ?? '', url)) return undefined;
  return proxy;
}

/** The variable a URL's proxy came from. */
export function proxySource(settings: ProxySettings, url: URL): string {
  const sources = settings.sources ?? {};
  if (url.protocol === 'https:' && settings.https) return sources.https ?? 'HTTPS_PROXY';
  return sources.http ?? 'HTTP_PROXY';
}

/** A proxy URL fit for a message: its origin, never the user name and password in it. */
export function showProxy(proxy: string): string {
  return URL.canParse(proxy) ? new URL(proxy).origin : '(an unparsable proxy URL)';
}

/** Whether any proxy is set: only then is undici's proxy agent loaded. */
export function hasProxy(settings: ProxySettings | undefined): settings is ProxySettings {
  return Boolean(settings?.http || settings?.https);
}
