/**
 * The probes of `roster check`: one request each, judged by status and the Content-Type the
 * service answered with. A step never throws; it records pass, fail (with why), skip, or "not
 * offered": the service does not have it (no GET /api, a version it does not serve), which is
 * no failure as long as what this client itself sends is offered.
 */
import type { ApiClient, HttpMethod, JsonResponse } from '../../../client/index.js';
import { ApiError, ClientError, PermissionError } from '../../../client/index.js';
import { type Endpoint, mediaTypeOf, type VersionEntry } from '../../../contract/versions.js';
import { userMessage } from '../../advice.js';
import { firstLine } from '../../errors.js';
import { DeadlineReached } from './deadline.js';

export type Result = 'pass' | 'fail' | 'skip' | 'not offered' | 'not permitted';

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

/** The service does not offer what the step asks for (and need not). */
export class NotOffered extends Error {}

/** The token lacks an expected scope: a failure of the token (exit 3). */
export class ScopesMissing extends Error {}

export interface Probe {
  client: ApiClient;
  /** The vendor word in use (the client's, which a 406 at the start may have corrected). */
  readonly vendor: string;
  steps: Step[];
  /** Set after an auth failure or a lost service: later steps are skipped. */
  stopped?: string;
  /**
   * Scopes the token must have (--expect-scopes): a step
   * that needs one of them and is not permitted fails; any other is "not permitted".
   */
  expected?: ReadonlySet<string>;
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
    if (err instanceof NotOffered) {
      probe.steps.push({ name, result: 'not offered', detail: err.message, ms: ms() });
      return false;
    }
    // A token that works but may not run this step: no failure unless the scope is expected.
    if (err instanceof PermissionError) {
      const needs = `needs ${err.scope ?? 'a permission the service did not name'}`;
      if (err.scope && !probe.expected?.has(err.scope)) {
        probe.steps.push({ name, result: 'not permitted', detail: needs, ms: ms() });
      } else {
        const detail = `not permitted (${needs})`;
        probe.steps.push({ name, result: 'fail', detail, ms: ms(), auth: true });
      }
      return false;
    }
    if (err instanceof ScopesMissing) {
      probe.steps.push({ name, result: 'fail', detail: err.message, ms: ms(), auth: true });
      return false;
    }
    const auth = err instanceof ApiError && (err.status === 401 || err.status === 403);
    const detail =
      err instanceof ApiError
        ? `${err.status} ${err.type ?? ''} ${err.serverMessage}`.replace(/\s+/g, ' ')
        : firstLine(userMessage(err));
    probe.steps.push({ name, result: 'fail', detail, ms: ms(), ...(auth ? { auth } : {}) });
    if (auth) probe.stopped = 'skipped: the token was rejected';
    else if (err instanceof DeadlineReached) {
      probe.stopped = `skipped: --deadline ${err.seconds} s reached`;
    } else if (err instanceof ClientError && !(err instanceof ApiError)) {
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
  let res: JsonResponse<T>;
  try {
    res = await probe.client.http.json<T>({ method, endpoint, params, query, json, headers });
  } catch (err) {
    throw await unlessOffered(probe, req, err);
  }
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

/**
 * A 406 (Accept) or 415 (Content-Type) says the service does not offer that version: "not
 * offered", unless it is the very type this client sends there, which must be offered.
 */
async function unlessOffered(
  probe: Probe,
  req: { method: HttpMethod; endpoint: Endpoint; accept: VersionEntry; contentType?: VersionEntry },
  err: unknown,
): Promise<unknown> {
  if (!(err instanceof ApiError) || (err.status !== 406 && err.status !== 415)) return err;
  const header = err.status === 406 ? 'accept' : 'content-type';
  const entry = header === 'accept' ? req.accept : req.contentType;
  if (!entry || req.method === 'HEAD' || req.method === 'OPTIONS') return err;
  const own = await probe.client.http.choose(req.endpoint, req.method, header);
  if (own === entry) return err;
  const type = mediaTypeOf(entry, probe.vendor);
  return new NotOffered(`${err.status}: the service does not offer ${type} here`);
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
