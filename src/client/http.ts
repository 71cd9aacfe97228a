/**
 * The HTTP core every endpoint function goes through, put together from its parts: the
 * connections (dispatch.ts: a keep-alive Pool per origin, or the proxy agent), the media types
 * and headers (negotiate.ts: Basic auth only towards the base URL's origin unless a request
 * says otherwise), the attempts (send.ts: timeouts, retries, errors → typed errors), and a 401
 * told apart from a missing permission (permission.ts).
 */
import { createDispatch } from './dispatch.js';
import { MediaTypes } from './media-types.js';
import { Negotiation } from './negotiate.js';
import { explainUnauthorized } from './permission.js';
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
    { token: opts.token, userAgent: opts.userAgent, origin: base.origin, runId: opts.runId },
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

  // A 401 to a token that works otherwise is a missing permission (permission.ts). Asked once
  // per client: a run of many requests that all get 401 asks it once.
  let branchAnswer: Promise<unknown> | undefined;
  const branch = (signal?: AbortSignal) => {
    branchAnswer ??= send({ method: 'GET', url: '/branch', signal, once: true }, (a, u) =>
      readJson<unknown>(a, 'GET', u),
    );
    return branchAnswer;
  };
  const explained: Send = async (request, consume) => {
    // A request without a signal of its own stops with the client's (a run's deadline).
    const spec = request.signal || !opts.signal ? request : { ...request, signal: opts.signal };
    try {
      return await send(spec, consume);
    } catch (err) {
      throw opts.token ? await explainUnauthorized(err, spec, branch) : err;
    }
  };

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
      return explained(spec, async (answer, url) => ({
        status: answer.status,
        headers: answer.headers,
        data: await readJson<T>(answer, spec.method, url),
      }));
    },
    request: (spec) => explained(spec, async (answer) => answer),
    close: () => dispatch.close(),
  };
}
