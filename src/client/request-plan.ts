/**
 * One request's media types, headers and body, as the negotiation (negotiate.ts) gives them,
 * and the steps down after a 406 or 415.
 */
import type { ApiError } from './errors.js';
import type { Negotiation, Used } from './negotiate.js';
import type { RawBody, RequestSpec } from './types.js';

/**
 * Steps down one request may take: each goes to a type not tried yet, and a service could name
 * a new vendor word in every answer. The registry's choices and known words need fewer.
 */
const MAX_STEPS = 6;

/** One request's media types, headers and body; a 406 or 415 steps them down. */
export class RequestPlan {
  used: Used;
  headers: Record<string, string>;
  payload: RawBody | undefined;
  /** The media types and vendor words this request was refused with. */
  private readonly refused = new Set<string>();
  private readonly refusedVendors = new Set<string>();

  constructor(
    private readonly n: Negotiation,
    private readonly spec: RequestSpec,
    private readonly url: URL,
  ) {
    this.used = n.used(spec);
    this.headers = n.headers(spec, url, this.used);
    this.payload = n.payload(spec, this.used);
  }

  /**
   * The request succeeded: the base URL's choices are these. Gives the vendor word in use when
   * this run has not named it yet (or it changed), for the trace.
   */
  learn(): string | undefined {
    this.n.types.learn(this.used);
    return this.used.length > 0 ? this.n.announce() : undefined;
  }

  /**
   * After an error answer: for a 406 (Accept) or 415 (Content-Type) to a negotiated type, the
   * media type to try instead, one this request was not refused yet; undefined when there is
   * none (or the answer is not that).
   */
  async stepDown(status: number, error: ApiError): Promise<{ to: string | undefined } | undefined> {
    const h = status === 406 ? 'accept' : status === 415 ? 'content-type' : null;
    const failed = this.used.find(([, , header]) => header === h);
    if (!failed || this.refused.size >= MAX_STEPS) return undefined;
    const [endpoint, method, header] = failed;
    const tried = this.headers[header] ?? '';
    const seen = (type: string | undefined) => `${header} ${(type ?? '').toLowerCase()}`;
    this.refused.add(seen(tried));
    this.refusedVendors.add(this.n.types.vendor);
    const before = JSON.stringify(this.headers);
    const refresh = () => {
      this.used = this.n.used(this.spec);
      this.headers = this.n.headers(this.spec, this.url, this.used);
      return JSON.stringify(this.headers) !== before;
    };
    // A catalog settles it if the service has one; else the answer and the registry.
    const { types } = this.n;
    if (types.catalog === undefined) await this.n.fetchCatalog(this.spec.signal);
    const stepped =
      refresh() ||
      (types.step(endpoint, method, header, tried, error.serverMessage, this.refusedVendors) &&
        refresh());
    const to = this.headers[header];
    if (!stepped || this.refused.has(seen(to))) return undefined;
    this.payload = this.n.payload(this.spec, this.used);
    return { to };
  }
}
