/**
 * The HTTP core every endpoint function goes through: one keep-alive undici Pool per origin
 * (or, with a proxy set, undici's EnvHttpProxyAgent, loaded only then), Basic auth (only towards
 * the base URL's origin unless a request says otherwise), the newest registry version's media
 * types, timeouts, retries with full-jitter backoff, and error answers mapped to typed errors.
 */
import { STATUS_CODES } from 'node:http';
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import {
  type Endpoint,
  type Header,
  JSON_TYPE,
  type Method,
  mediaTypeOf,
  type VersionEntry,
  versionsOf,
} from '../contract/versions.js';
import {
  ApiError,
  ClientError,
  NetworkError,
  type ProxyUsed,
  ResponseFormatError,
  redactUrl,
} from './errors.js';
import { MediaTypes } from './media-types.js';
import { hasProxy, proxyFor, proxySource, showProxy } from './proxy.js';
import { type Answer, errorFromAnswer, header, readJson } from './response.js';
import {
  backoffDelay,
  DEFAULT_RETRY,
  errorCode,
  isRetryableNetworkError,
  isRetryableStatus,
  parseRetryAfter,
  sleep,
} from './retry.js';
import type { HttpClient, HttpClientOptions, RawBody, RequestSpec } from './types.js';
import { Pool } from './undici-pool.js';

export type * from './types.js';

const redact = redactUrl;

/** Whole milliseconds since it was made. */
function stopwatch() {
  const t0 = performance.now();
  return () => Math.round(performance.now() - t0);
}

export function createHttpClient(opts: HttpClientOptions): HttpClient {
  const base = new URL(opts.baseUrl.replace(/\/+$/, ''));
  const baseUrl = base.href.replace(/\/+$/, '');
  const types = new MediaTypes(baseUrl, opts.vendor, opts.memory);
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const retry = { ...DEFAULT_RETRY, ...opts.retry };
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

  /**
   * With a proxy set, every request goes through undici's EnvHttpProxyAgent, which picks the
   * proxy or a direct connection per URL (NO_PROXY). https:// URLs go through a CONNECT tunnel,
   * so the proxy sees the host and port but neither the token nor the request; http:// URLs are
   * forwarded (GET http://host/path, as curl does), so the proxy sees the whole request,
   * Authorization included: plain HTTP is readable on its way, with or without a proxy.
   */
  const dispatcherFor = (origin: string): Dispatcher | Promise<Dispatcher> => {
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
  };

  /** The proxy a request to `url` goes through, for traces and messages. */
  const viaOf = (url: URL): ProxyUsed | undefined => {
    const used = proxyFor(proxy, url);
    return used && proxy ? { proxy: showProxy(used), source: proxySource(proxy, url) } : undefined;
  };

  const targetOf = (spec: RequestSpec): URL => {
    let path = spec.endpoint ?? spec.url ?? '';
    for (const [key, value] of Object.entries(spec.params ?? {})) {
      path = path.replace(`{${key}}`, encodeURIComponent(value));
    }
    const url = /^https?:\/\//i.test(path) ? new URL(path) : new URL(`${baseUrl}${path}`);
    for (const [key, value] of Object.entries(spec.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url;
  };

  /** The registry entries this request negotiates: none where headers are given or unversioned. */
  const negotiated = (spec: RequestSpec): [Endpoint, Method, Header, VersionEntry][] => {
    const { endpoint, method } = spec;
    if (!endpoint || method === 'HEAD' || method === 'OPTIONS') return [];
    const used: [Endpoint, Method, Header, VersionEntry][] = [];
    const given = Object.keys(spec.headers ?? {}).map((k) => k.toLowerCase());
    for (const h of ['accept', 'content-type'] as Header[]) {
      if (given.includes(h) || (h === 'content-type' && (!hasJson(spec) || spec.contentType))) {
        continue;
      }
      if (versionsOf(endpoint, method, h).length === 0) continue;
      used.push([endpoint, method, h, types.choose(endpoint, method, h)]);
    }
    return used;
  };

  const headersOf = (
    spec: RequestSpec,
    url: URL,
    used: [Endpoint, Method, Header, VersionEntry][],
  ): Record<string, string> => {
    const h: Record<string, string> = { 'user-agent': opts.userAgent ?? 'roster' };
    // The token goes only to the API's own origin, never to a CDN or another host, unless the
    // request says so (a media download from a host the admin allowed: cdnAuth).
    const sendToken = spec.token ?? url.origin === base.origin;
    if (sendToken && opts.token) h.authorization = `Basic ${opts.token}`;
    h.accept = spec.endpoint ? JSON_TYPE : '*/*';
    if (hasJson(spec)) h['content-type'] = JSON_TYPE;
    for (const [, , header, entry] of used) h[header] = mediaTypeOf(entry, types.vendor);
    if (spec.contentType) h['content-type'] = spec.contentType;
    if (spec.contentLength !== undefined) h['content-length'] = String(spec.contentLength);
    return { ...h, ...spec.headers };
  };

  /** The JSON body for the content type in use (some types require fields: `jsonFor`). */
  const payloadOf = (spec: RequestSpec, used: [Endpoint, Method, Header, VersionEntry][]) => {
    if (spec.jsonFor) {
      const entry = used.find(([, , h]) => h === 'content-type')?.[3];
      return Buffer.from(JSON.stringify(spec.jsonFor(entry, types.vendor)));
    }
    return spec.json !== undefined ? Buffer.from(JSON.stringify(spec.json)) : spec.body;
  };

  /**
   * Before the first write of an endpoint to a base URL: what its catalog (`GET /api`) offers,
   * if it has one. A service without one (the real platform) answers 404 or a web page: the
   * built-in choices then.
   */
  const askCatalog = async (endpoint: Endpoint, method: Method, signal?: AbortSignal) => {
    if (types.catalog === undefined && types.unknown(endpoint, method, 'content-type')) {
      await fetchCatalog(signal);
    }
  };

  const fetchCatalog = async (signal?: AbortSignal) => {
    let data: unknown;
    try {
      // A probe: one attempt, no retries; the request that needs it has its own.
      const spec: RequestSpec = { method: 'GET', url: '', signal, once: true };
      spec.headers = { accept: JSON_TYPE };
      data = await send(spec, (a, u) => readJson<unknown>(a, 'GET', u));
    } catch (err) {
      if (!(err instanceof ClientError) || err instanceof NetworkError) throw err;
      // Busy or failing now says nothing about whether it has one: ask again next time.
      if (err instanceof ApiError && (err.status === 429 || err.status >= 500)) return;
      data = undefined;
    }
    types.useCatalog(data);
  };

  async function send<T>(
    request: RequestSpec,
    consume: (a: Answer, url: string) => Promise<T>,
  ): Promise<T> {
    const spec = request.signal || !opts.signal ? request : { ...request, signal: opts.signal };
    const { endpoint, method } = spec;
    if (endpoint && hasJson(spec) && method !== 'HEAD' && method !== 'OPTIONS') {
      await askCatalog(endpoint, method, spec.signal);
    }
    const url = targetOf(spec);
    const href = url.href;
    let used = negotiated(spec);
    let headers = headersOf(spec, url, used);
    let payload = payloadOf(spec, used);
    const via = viaOf(url);
    const through = via ? ` via proxy ${via.proxy}` : '';
    const oneShot = payload !== undefined && typeof payload === 'object' && !isBytes(payload);
    let started = false; // whether a one-shot body began to be read: then no retry
    let stepped = false; // a 406/415 steps down the registry once per request
    let waited = 0;
    for (let attempt = 1; ; attempt++) {
      // Timed for --verbose only: the first performance.now() loads perf_hooks (~1 ms).
      const elapsed = opts.onTrace ? stopwatch() : () => 0;
      opts.onTrace?.(`→ ${spec.method} ${redact(href)}${through}`);
      let failure: { error: ClientError; reason: string; retryable: boolean; afterMs?: number };
      try {
        const dispatcher = await dispatcherFor(url.origin);
        const res = await dispatcher.request({
          origin: url.origin,
          path: url.pathname + url.search,
          method: spec.method,
          headers,
          // Per request too: a forwarding proxy's connection is made without the pool options.
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
          body: openBody(payload, () => {
            started = true;
          }),
          signal: spec.signal,
        });
        const answer: Answer = { status: res.statusCode, headers: res.headers, body: res.body };
        const ms = elapsed();
        const deprecated = header(res.headers, 'deprecation') ? ' (deprecated version)' : '';
        opts.onTrace?.(
          `← ${res.statusCode} ${STATUS_CODES[res.statusCode] ?? ''} ${ms} ms${deprecated}`,
        );
        if (res.statusCode < 400) {
          types.learn(used);
          return await consume(answer, href);
        }
        // A DELETE retried after a failure the first attempt may have acted on, now answered
        // 404: that first attempt removed it. Gone is what was asked for.
        if (res.statusCode === 404 && spec.method === 'DELETE' && attempt > 1) {
          await res.body.dump();
          return await consume({ status: 204, headers: {}, body: Readable.from([]) }, href);
        }
        const error = await errorFromAnswer(answer, spec.method, href);
        // An HTML error page on the way through a proxy is most likely the proxy's.
        if (via && error instanceof ResponseFormatError) {
          error.message += ` The request went through ${via.proxy} (${via.source}): the answer may be the proxy's; list ${url.hostname} in NO_PROXY if it is reachable without the proxy.`;
        }
        const h =
          res.statusCode === 406 ? 'accept' : res.statusCode === 415 ? 'content-type' : null;
        const failed = used.find(([, , header]) => header === h);
        const replayable = !oneShot || typeof payload === 'function' || !started;
        if (failed && !stepped && replayable && error instanceof ApiError) {
          stepped = true;
          const before = JSON.stringify(headers);
          const step = () => {
            used = negotiated(spec);
            headers = headersOf(spec, url, used);
            return JSON.stringify(headers) !== before;
          };
          // A catalog settles it if the service has one; else the answer and the registry.
          if (types.catalog === undefined) await fetchCatalog(spec.signal);
          const [endpoint, method, h] = failed;
          if (
            step() ||
            (types.step(endpoint, method, h, headers[h] ?? '', error.serverMessage) && step())
          ) {
            payload = payloadOf(spec, used);
            opts.onTrace?.(`  stepping down to ${headers[h]}`);
            attempt--;
            continue;
          }
        }
        failure = {
          error,
          reason: `${res.statusCode} ${STATUS_CODES[res.statusCode] ?? ''}`.trim(),
          retryable: isRetryableStatus(res.statusCode, spec.method),
          afterMs: parseRetryAfter(header(res.headers, 'retry-after')),
        };
      } catch (err) {
        if (err instanceof ClientError) throw err;
        if (spec.signal?.aborted) throw spec.signal.reason ?? err;
        const code = errorCode(err);
        opts.onTrace?.(`← ${code ?? 'error'} ${elapsed()} ms`);
        const error = new NetworkError({
          method: spec.method,
          url: href,
          code,
          cause: err,
          attempts: attempt,
          timeoutMs,
          via: via && { ...via, status: proxyRefusal(err) },
        });
        failure = {
          error,
          reason: code ?? 'network error',
          retryable: isRetryableNetworkError(code, spec.method),
        };
      }
      const delayMs = failure.afterMs ?? backoffDelay(attempt - 1, retry);
      const replayable = !oneShot || typeof payload === 'function' || !started;
      if (!failure.retryable || !replayable || attempt > retry.maxRetries || spec.once) {
        throw failure.error;
      }
      if (waited + delayMs > retry.maxTotalWaitMs) throw failure.error;
      opts.onRetry?.({
        method: spec.method,
        url: redact(href),
        retry: attempt,
        maxRetries: retry.maxRetries,
        delayMs,
        reason: failure.reason,
      });
      await (opts.sleep ?? sleep)(delayMs, spec.signal);
      waited += delayMs;
    }
  }

  return {
    baseUrl,
    origin: base.origin,
    get vendor() {
      return types.vendor;
    },
    async choose(endpoint, method, header) {
      if (header === 'content-type') await askCatalog(endpoint, method);
      return types.choose(endpoint, method, header);
    },
    async json<T>(spec: RequestSpec) {
      return send(spec, async (answer, url) => ({
        status: answer.status,
        headers: answer.headers,
        data: await readJson<T>(answer, spec.method, url),
      }));
    },
    request: (spec) => send(spec, async (answer) => answer),
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

/** Whether the request carries a JSON body (whose media type is negotiated). */
const hasJson = (spec: RequestSpec) => spec.json !== undefined || spec.jsonFor !== undefined;

/**
 * The status a proxy refused with: undici reports a refused CONNECT as "Proxy response (403)
 * !== 200 when HTTP Tunneling", a forwarding proxy's 407 as "Proxy Authentication Required (407)".
 */
function proxyRefusal(err: unknown): number | undefined {
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

function isBytes(body: unknown): body is string | Uint8Array {
  return typeof body === 'string' || body instanceof Uint8Array;
}

/** The body for one attempt; streams are wrapped so the first read is noticed. */
function openBody(payload: RawBody | undefined, onStart: () => void) {
  if (payload === undefined || isBytes(payload)) return payload;
  const source = typeof payload === 'function' ? payload() : payload;
  async function* watched() {
    onStart();
    yield* source;
  }
  return Readable.from(watched(), { objectMode: false });
}
