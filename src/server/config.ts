import type { Cidr, EgressPolicy } from './webhooks/egress.js';
import type { WorkerDeps } from './webhooks/worker.js';

/** What a server instance is configured with; built by `roster serve` or by tests. */
export interface ServerConfig {
  dataDir: string;
  /** The vendor word of media types (`application/vnd.<vendor>.accessors…`). */
  vendor: string;
  /**
   * Behave as the real platform's documentation says, for testing clients against it: no
   * `GET /api` (nor its OpenAPI document), only the platform's media types (new users as
   * `user-invite.v2`, changes as `user-update.v1` or plain JSON, no deprecated `user.v2`), 406
   * and 415 answers that do not list the supported types, and sorting by name keys only.
   */
  likePlatform?: boolean;
  /**
   * A users search counts its matches up to this many, then answers that bound with
   * `totalExact: false`; default SEARCH_COUNT_UP_TO (not with likePlatform: exact there).
   */
  searchCountUpTo?: number;
  /** Requests per second per token; undefined = no limit. */
  rateLimit?: number;
  /** Largest accepted upload in bytes. */
  maxUploadBytes: number;
  /** Base URL of a CDN in front of `/cdn`; default: this server's own `/cdn` route. */
  cdnUrl?: string;
  /**
   * Origin of the default tenant's absolute URLs (Location, media URLs) instead of the Host it
   * was asked by; named tenants keep theirs in the database (`roster tenants set`).
   */
  publicUrl?: string;
  /** A JSON or form request body must be complete this long after its headers; default 10 s. */
  bodyTimeoutMs?: number;
  /** Invitations go to this SMTP relay (smtp:// or smtps://); default: .eml files in the data dir. */
  smtpUrl?: string;
  /** First retry delay of a failed delivery (doubling up to 15 min); default 1 s. */
  mailRetryBaseMs?: number;
  /**
   * Write every image upload again without its metadata (EXIF, GPS, serials, XMP, IPTC) before
   * storing it; default off: uploads are stored byte for byte (avatars refuse metadata anyway).
   */
  stripMetadata?: boolean;
  /** Media storage per tenant for tenants without their own quota; default: no limit. */
  quotaBytes?: number;
  /** Let the start-up sweep remove more than a tenth of the media (after a real loss). */
  forceSweep?: boolean;
  /** Write one line per request to the log. */
  accessLog?: boolean;
  /**
   * /cdn serves files to the API token only, and media URLs carry no signature: the real
   * platform's behaviour since 2026-03 ("media URLs need authentication"). Default off.
   */
  cdnTokenOnly?: boolean;
  /** How long signed CDN URLs stay valid (rounded up to the hour); default 24 h. */
  signedUrlTtlSeconds?: number;
  /** An upload body idle this long is cut; default 5 min (not counting the server's own work). */
  uploadIdleTimeoutMs?: number;
  /** A preview taking longer is abandoned (the medium is stored without one); default 30 s. */
  previewTimeoutMs?: number;
  /**
   * How long an idle keep-alive connection stays open; default 65 s. Behind a load balancer it
   * must outlast the balancer's own idle timeout, or the balancer may send a request on a
   * connection this server is closing (a POST then fails with 502).
   */
  keepAliveTimeoutMs?: number;
  /**
   * A request's headers must be complete this long after its first byte (a connection that
   * sends none is cut then too); default keepAliveTimeoutMs + 5 s. Not a `serve` option: tests
   * make it small.
   */
  headersTimeoutMs?: number;
  /**
   * Open connections one client address may hold at once; the next is answered 503 and closed.
   * 0: no cap. Default DEFAULT_MAX_CONNECTIONS_PER_CLIENT. Behind a proxy or load balancer every
   * connection comes from its address: raise it there, or turn it off.
   */
  maxConnectionsPerClient?: number;
  /**
   * On SIGTERM, how long to keep answering with /readyz failing before the listener closes, so
   * a load balancer's health check takes this replica out first; default 0 (no balancer).
   */
  drainDelayMs?: number;
  /** With a shared bucket, an object without a row is swept once older than this; default 1 h. */
  sweepGraceMs?: number;
  /** Days events are kept (`serve --events-retention`); default DEFAULT_RETENTION_DAYS. */
  eventsRetentionDays?: number;
  /** How often a long poll re-reads for other replicas' events; default 250 ms. */
  eventsPollMs?: number;
  /** `serve --webhooks-allow`: ranges webhooks may be delivered to although refused by default. */
  webhooksAllow?: Cidr[];
  /** `serve --webhooks-allow-http`: http:// webhook URLs too. */
  webhooksAllowHttp?: boolean;
  /** The service's proxies (HTTPS_PROXY, NO_PROXY…), which deliveries go through. */
  webhooksProxy?: EgressPolicy['proxy'];
  /**
   * The delivery worker's clock, dice, poll and attempt timeout. Not `serve` options: retry
   * tests move the clock instead of waiting.
   */
  webhookTuning?: Pick<
    WorkerDeps,
    'now' | 'random' | 'pollMs' | 'concurrency' | 'perEndpoint' | 'followMs'
  > & {
    timeoutMs?: number;
  };
  /** Serves GET /metrics to `Authorization: Bearer <this>`; without it /metrics does not exist. */
  metricsToken?: string;
  /**
   * scrypt's cost N for one-time passwords and recovery codes (a power of two); default
   * SECRET_HASH_COST (users/secrets.ts). Not a `serve` option: tests make their many users
   * with a lower one, and every hash names its own cost.
   */
  secretHashCost?: number;
}

export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 65_000;
/** Far above what a browser (6) or a pooling client opens, far below a process's file limit. */
export const DEFAULT_MAX_CONNECTIONS_PER_CLIENT = 256;

export const DEFAULT_MAX_UPLOAD_BYTES = 1024 ** 3;
export const DEFAULT_PREVIEW_TIMEOUT_MS = 30_000;
