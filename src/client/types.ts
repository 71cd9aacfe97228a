/** The HTTP core's public types: options, request specs, answers. */
import type { Readable } from 'node:stream';
import type { Endpoint, Header, Method, VersionEntry } from '../contract/versions.js';
import type { MediaTypeMemory } from './media-types.js';
import type { ProxySettings } from './proxy.js';
import type { Answer } from './response.js';
import type { RetryOptions } from './retry.js';

export type { ProxySettings } from './proxy.js';
export type { Answer } from './response.js';
export type { RetryOptions } from './retry.js';
export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

/** What `onRetry` hears before each wait: enough for a one-line stderr notice. */
export interface RetryInfo {
  method: string;
  url: string;
  /** 1 for the first retry. */
  retry: number;
  maxRetries: number;
  /** Set while the service says it is unavailable: retried until this many ms have been waited. */
  untilMs?: number;
  delayMs: number;
  /** `429 Too Many Requests`, `ECONNREFUSED`, … */
  reason: string;
}

export interface HttpClientOptions {
  /** The tenant base address, ending with /api (e.g. http://127.0.0.1:8080/api). */
  baseUrl: string;
  /** The API token, sent as `Authorization: Basic <token>`. */
  token: string;
  /**
   * The media-type vendor word. Default: what `memory` remembers for the base URL, else
   * `service`; a 406 naming another one switches to it.
   */
  vendor?: string;
  /** Keeps what each base URL accepted between runs (the CLI: a file in its config dir). */
  memory?: MediaTypeMemory;
  /** Connect, headers and body timeout. Default 30 s. */
  timeoutMs?: number;
  retry?: RetryOptions;
  /** Max connections per origin. Default 16. */
  connections?: number;
  userAgent?: string;
  /**
   * Proxies (HTTP_PROXY, HTTPS_PROXY, NO_PROXY, as the CLI reads them). Unset or without a proxy
   * URL: every request connects directly, and nothing of undici's proxy code is loaded.
   */
  proxy?: ProxySettings;
  /** One line per request and per answer (--verbose). Never sees the token. */
  onTrace?: (line: string) => void;
  onRetry?: (info: RetryInfo) => void;
  /** Waits between attempts (default: a timer that an abort cuts short); tests pass their own. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Aborts every request of this client that has no signal of its own (a run's deadline). */
  signal?: AbortSignal;
  /**
   * Sent as `Roster-Run-Id` on every request to the API's origin: the service records it in
   * each change's event, so one import or avatar sync can be listed as one thing.
   */
  runId?: string;
}

/** A request body: replayable (bytes, or a factory opening a fresh stream) or a one-shot stream. */
export type RawBody =
  | string
  | Uint8Array
  | Readable
  | AsyncIterable<Uint8Array>
  | (() => Readable | AsyncIterable<Uint8Array>);

export interface RequestSpec {
  method: HttpMethod;
  /** A registry endpoint: its newest version gives Accept (and Content-Type for `json`). */
  endpoint?: Endpoint;
  /** Values for the endpoint's `{placeholders}`; URI-encoded here. */
  params?: Record<string, string>;
  /** Instead of `endpoint`: a path under the base URL or an absolute URL (downloads). */
  url?: string;
  query?: Record<string, string | number | boolean | undefined>;
  /** A JSON body, sent with the request media type chosen for the endpoint. */
  json?: unknown;
  /**
   * Instead of `json`: the body for the request type in use, which may require fields (the
   * platform's user-invite.v2 requires role and config.locale). Called again after a step down.
   */
  jsonFor?: (contentType: VersionEntry | undefined, vendor: string) => unknown;
  body?: RawBody;
  contentType?: string;
  contentLength?: number;
  headers?: Record<string, string>;
  /**
   * Whether to send the token. Default: only when the URL is on the base URL's origin. `true`
   * sends it to another origin too (a media host the admin allowed: cdnAuth); `false` never.
   */
  token?: boolean;
  signal?: AbortSignal;
  /** One attempt only: a probe whose failure the caller handles. */
  once?: boolean;
}

export interface JsonResponse<T> {
  status: number;
  headers: Answer['headers'];
  data: T;
}

export interface HttpClient {
  /** The base URL without a trailing slash. */
  readonly baseUrl: string;
  readonly origin: string;
  /** The vendor word in use (it changes when a 406 names another). */
  readonly vendor: string;
  /**
   * The registry entry this client sends for an endpoint, method and header (asking the
   * service's catalog first, before the first write to a base URL).
   */
  choose(endpoint: Endpoint, method: Method, header: Header): Promise<VersionEntry>;
  /** Sends the request and parses the JSON answer (`undefined` data for 202/204/empty). */
  json<T>(spec: RequestSpec): Promise<JsonResponse<T>>;
  /** Sends the request and hands back the answer with its body as a stream (downloads). */
  request(spec: RequestSpec): Promise<Answer>;
  /** Closes every pool; in-flight requests finish first. */
  close(): Promise<void>;
}
