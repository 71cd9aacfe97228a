/**
 * The probes of `roster check`: one request each, judged by status and the Content-Type the
 * service answered with. A step never throws; it records pass, fail (with why) or skip.
 */
import type { ApiClient, HttpMethod, JsonResponse } from '../../client/index.js';
import { ApiError, ClientError } from '../../client/index.js';
import { type Endpoint, mediaTypeOf, type VersionEntry } from '../../contract/versions.js';

export type Result = 'pass' | 'fail' | 'skip';

export interface Step {
  name: string;
  result: Result;
  detail: string;
  ms: number;
  /** The service rejected the token (401/403): the check exits 3. */
  auth?: boolean;
}

/** An expectation that did not hold. */
export class Mismatch extends Error {}

export interface Probe {
  client: ApiClient;
  vendor: string;
  steps: Step[];
  /** Set after an auth failure or a lost service: later steps are skipped. */
  stopped?: string;
}

/** Runs one step; the function's string is the pass detail. */
export async function step(probe: Probe, name: string, fn: () => Promise<string>) {
  if (probe.stopped) {
    probe.steps.push({ name, result: 'skip', detail: probe.stopped, ms: 0 });
    return false;
  }
  const t0 = performance.now();
  const ms = () => Math.round(performance.now() - t0);
  try {
    const detail = await fn();
    probe.steps.push({ name, result: 'pass', detail, ms: ms() });
    return true;
  } catch (err) {
    const auth = err instanceof ApiError && (err.status === 401 || err.status === 403);
    const detail =
      err instanceof ApiError
        ? `${err.status} ${err.type ?? ''} ${err.serverMessage}`.replace(/\s+/g, ' ')
        : ((err as Error).message.split('\n')[0] ?? String(err));
    probe.steps.push({ name, result: 'fail', detail, ms: ms(), ...(auth ? { auth } : {}) });
    if (auth) probe.stopped = 'skipped: the token was rejected';
    else if (err instanceof ClientError && !(err instanceof ApiError)) {
      probe.stopped = 'skipped: the service could not be reached';
    }
    return false;
  }
}

/** Records a skipped step; after a stop (rejected token, lost service) that is the reason. */
export const skip = (probe: Probe, name: string, why: string) =>
  probe.steps.push({ name, result: 'skip', detail: probe.stopped ?? why, ms: 0 });

const baseType = (value: string | string[] | undefined) =>
  (Array.isArray(value) ? value[0] : value)?.split(';')[0]?.trim().toLowerCase();

/**
 * Sends one request with a version's media type (Accept, and Content-Type when it has a body)
 * and checks the answer's status and Content-Type.
 */
export async function negotiate<T>(
  probe: Probe,
  req: {
    method: HttpMethod;
    endpoint: Endpoint;
    params?: Record<string, string>;
    query?: Record<string, string | number>;
    accept: VersionEntry;
    contentType?: VersionEntry;
    json?: unknown;
    status: number;
  },
): Promise<JsonResponse<T>> {
  const accept = mediaTypeOf(req.accept, probe.vendor);
  const headers: Record<string, string> = { accept };
  if (req.contentType) headers['content-type'] = mediaTypeOf(req.contentType, probe.vendor);
  const { method, endpoint, params, query, json } = req;
  const res = await probe.client.http.json<T>({ method, endpoint, params, query, json, headers });
  if (res.status !== req.status)
    throw new Mismatch(`answered ${res.status}, expected ${req.status}`);
  if (res.data !== undefined) {
    const answered = baseType(res.headers['content-type']);
    if (answered !== accept.toLowerCase()) {
      throw new Mismatch(`answered Content-Type ${answered ?? '(none)'}, expected ${accept}`);
    }
  }
  const deprecated = res.headers.deprecation !== undefined;
  if (req.accept.stage === 'deprecated' && !deprecated) {
    throw new Mismatch('a deprecated version answered without a Deprecation header');
  }
  return res;
}

/** `${status} ${type}` for a pass detail. */
export const answered = (res: JsonResponse<unknown>, stage: string) =>
  `${res.status}, ${baseType(res.headers['content-type']) ?? 'no body'} (${stage})`;

/** Passes when `fn` fails with 404 (a removed user or medium). */
export async function expect404(fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return '404 NotFoundException';
    throw err;
  }
  throw new Mismatch('still answers 2xx');
}
