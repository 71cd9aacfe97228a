/** What a server instance is configured with; built by `roster serve` or by tests. */
export interface ServerConfig {
  dataDir: string;
  /** The vendor word of media types (`application/vnd.<vendor>.accessors…`). */
  vendor: string;
  /** Requests per second per token; undefined = no limit. */
  rateLimit?: number;
  /** Largest accepted upload in bytes. */
  maxUploadBytes: number;
  /** Base URL of a CDN in front of `/cdn`; default: this server's own `/cdn` route. */
  cdnUrl?: string;
  /** Write one line per request to the log. */
  accessLog?: boolean;
}

export const DEFAULT_MAX_UPLOAD_BYTES = 1024 ** 3;
