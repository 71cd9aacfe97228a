/**
 * The connections: one keep-alive undici Pool per origin, or, with a proxy set, undici's
 * EnvHttpProxyAgent (loaded only then), and which proxy a URL goes through.
 */
import type { Dispatcher } from 'undici';
import type { ProxyUsed } from './errors.js';
import { hasProxy, type ProxySettings, proxyFor, proxySource, showProxy } from './proxy.js';
import { Pool } from './undici-pool.js';

export interface Dispatch {
  /** What sends a request to `origin`. */
  dispatcherFor(origin: string): Dispatcher | Promise<Dispatcher>;
  /** The proxy a request to `url` goes through, for traces and messages. */
  viaOf(url: URL): ProxyUsed | undefined;
  /** Closes every pool and the proxy agent; in-flight requests finish first. */
  close(): Promise<void>;
}

export function createDispatch(opts: {
  timeoutMs: number;
  connections?: number;
  proxy?: ProxySettings;
}): Dispatch {
  const { timeoutMs } = opts;
  const pools = new Map<string, Pool>();
  const proxy = hasProxy(opts.proxy) ? opts.proxy : undefined;
  let proxyAgent: Promise<Dispatcher> | undefined;
  const poolOptions = {
    connections: opts.connections ?? 16,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connect: { timeout: Math.min(timeoutMs, 10_000) },
  };

  const poolFor = (origin: string) => {
    let pool = pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, poolOptions);
      pools.set(origin, pool);
    }
    return pool;
  };

  return {
    /**
     * With a proxy set, every request goes through undici's EnvHttpProxyAgent, which picks the
     * proxy or a direct connection per URL (NO_PROXY). https:// URLs go through a CONNECT
     * tunnel, so the proxy sees the host and port but neither the token nor the request;
     * http:// URLs are forwarded (GET http://host/path, as curl does), so the proxy sees the
     * whole request, Authorization included: plain HTTP is readable on its way, with or
     * without a proxy.
     */
    dispatcherFor(origin) {
      if (!proxy) return poolFor(origin);
      proxyAgent ??= import('./undici-proxy.js').then(
        ({ EnvHttpProxyAgent }) =>
          new EnvHttpProxyAgent({
            ...poolOptions,
            // Explicit values ('' for none): undici then never reads the environment itself.
            httpProxy: proxy.http ?? '',
            httpsProxy: proxy.https ?? '',
            noProxy: proxy.noProxy ?? '',
            proxyTunnel: false,
          }),
      );
      return proxyAgent;
    },
    viaOf(url) {
      const used = proxyFor(proxy, url);
      return used && proxy
        ? { proxy: showProxy(used), source: proxySource(proxy, url) }
        : undefined;
    },
    async close() {
      const agent = proxyAgent;
      proxyAgent = undefined;
      await Promise.all([
        ...[...pools.values()].map((p) => p.close()),
        agent?.then((a) => a.close()),
      ]);
      pools.clear();
    },
  };
}

/**
 * The status a proxy refused with: undici reports a refused CONNECT as "Proxy response (403)
 * !== 200 when HTTP Tunneling", a forwarding proxy's 407 as "Proxy Authentication Required (407)".
 */
export function proxyRefusal(err: unknown): number | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 4; depth++) {
    const message = (e as { message?: unknown }).message;
    const m =
      typeof message === 'string'
        ? /^Proxy response \((\d{3})\)|^Proxy Authentication Required \((407)\)/.exec(message)
        : null;
    if (m) return Number(m[1] ?? m[2]);
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
