/**
 * The HTTP core every endpoint function goes through, put together from its parts: the
 * connections (dispatch.ts: a keep-alive Pool per origin, or the proxy agent), the media types
 * and headers (negotiate.ts: Basic auth only towards the base URL's origin unless a request
 * says otherwise), and the attempts (send.ts: timeouts, retries, errors → typed errors).
 */
import { createDispatch } from './dispatch.js';
import { MediaTypes } from './media-types.js';
import { Negotiation } from './negotiate.js';
import { readJson } from './response.js';
import { DEFAULT_RETRY } from './retry.js';
import { createSend, type Send } from './send.js';
import type { HttpClient, HttpClientOptions, RequestSpec } from './types.js';
import { baseOf } from './url.js';

export type * from './types.js';

export function createHttpClient(opts: HttpClientOptions): HttpClient {
  const { base, baseUrl } = baseOf(opts.baseUrl);
  const types = new MediaTypes(baseUrl, opts.vendor, opts.memory);
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const dispatch = createDispatch({ timeoutMs, connections: opts.connections, proxy: opts.proxy });
  const negotiation = new Negotiation(
    types,
    { token: opts.token, userAgent: opts.userAgent, origin: base.origin },
    (spec) => send(spec, (a, u) => readJson<unknown>(a, 'GET', u)),
  );
  const send: Send = createSend({
    baseUrl,
    dispatch,
    negotiation,
    timeoutMs,
    retry: { ...DEFAULT_RETRY, ...opts.retry },
    trace: opts.onTrace,
    onRetry: opts.onRetry,
    sleep: opts.sleep,
  });

  return {
    baseUrl,
    origin: base.origin,
    get vendor() {
      return types.vendor;
    },
    async choose(endpoint, method, header) {
      if (header === 'content-type') await negotiation.askCatalog(endpoint, method);
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
    close: () => dispatch.close(),
  };
}
