/**
 * Which media types a request sends (Accept, Content-Type) and the headers and body that go
 * with them: the registry's choice for the base URL (media-types.ts), the service's catalog
 * (`GET /api`) asked before the first write, and the steps down after a 406 or 415
 * (request-plan.ts).
 */
import {
  type Endpoint,
  type Header,
  JSON_TYPE,
  type Method,
  mediaTypeOf,
  type VersionEntry,
  versionsOf,
} from '../contract/versions.js';
import { ApiError, ClientError, NetworkError } from './errors.js';
import type { MediaTypes } from './media-types.js';
import { RequestPlan } from './request-plan.js';
import type { RawBody, RequestSpec } from './types.js';

/** The registry entries a request negotiates, per header. */
export type Used = [Endpoint, Method, Header, VersionEntry][];

/** What every request's headers take besides its media types. */
export interface HeaderBase {
  token: string;
  userAgent?: string;
  /** The API's origin: the only one the token goes to unless a request says otherwise. */
  origin: string;
  /** `Roster-Run-Id` for every request to that origin (HttpClientOptions.runId). */
  runId?: string;
}

/** Whether the request carries a JSON body (whose media type is negotiated). */
export const hasJson = (spec: RequestSpec) => spec.json !== undefined || spec.jsonFor !== undefined;

export class Negotiation {
  /**
   * `probe` sends one GET of the catalog (one attempt, no retries) and reads its JSON; the
   * request that needed it has retries of its own.
   */
  constructor(
    readonly types: MediaTypes,
    private readonly base: HeaderBase,
    private readonly probe: (spec: RequestSpec) => Promise<unknown>,
  ) {}

  /**
   * Before the first write of an endpoint to a base URL: what its catalog offers, if it has
   * one. A service without one (the real platform) answers 404 or a web page: the built-in
   * choices then.
   */
  async askCatalog(endpoint: Endpoint, method: Method, signal?: AbortSignal) {
    if (this.types.catalog === undefined && this.types.unknown(endpoint, method, 'content-type')) {
      await this.fetchCatalog(signal);
    }
  }

  async fetchCatalog(signal?: AbortSignal) {
    let data: unknown;
    try {
      data = await this.probe({
        method: 'GET',
        url: '',
        signal,
        once: true,
        headers: { accept: JSON_TYPE },
      });
    } catch (err) {
      if (!(err instanceof ClientError) || err instanceof NetworkError) throw err;
      // Busy or failing now says nothing about whether it has one: ask again next time.
      if (err instanceof ApiError && (err.status === 429 || err.status >= 500)) return;
      data = undefined;
    }
    this.types.useCatalog(data);
  }

  private announced: string | undefined;

  /** The vendor word in use, when not named before in this run. */
  announce(): string | undefined {
    if (this.announced === this.types.vendor) return undefined;
    this.announced = this.types.vendor;
    return this.announced;
  }

  /** Asks the catalog first where the request's body type is not known yet. */
  async prepare(spec: RequestSpec) {
    const { endpoint, method } = spec;
    if (endpoint && hasJson(spec) && method !== 'HEAD' && method !== 'OPTIONS') {
      await this.askCatalog(endpoint, method, spec.signal);
    }
  }

  /** The media types, headers and body of one request to `url`. */
  plan(spec: RequestSpec, url: URL): RequestPlan {
    return new RequestPlan(this, spec, url);
  }

  /** The registry entries this request negotiates: none where headers are given or unversioned. */
  used(spec: RequestSpec): Used {
    const { endpoint, method } = spec;
    if (!endpoint || method === 'HEAD' || method === 'OPTIONS') return [];
    const used: Used = [];
    const given = Object.keys(spec.headers ?? {}).map((k) => k.toLowerCase());
    for (const h of ['accept', 'content-type'] as Header[]) {
      if (given.includes(h) || (h === 'content-type' && (!hasJson(spec) || spec.contentType))) {
        continue;
      }
      if (versionsOf(endpoint, method, h).length === 0) continue;
      used.push([endpoint, method, h, this.types.choose(endpoint, method, h)]);
    }
    return used;
  }

  headers(spec: RequestSpec, url: URL, used: Used): Record<string, string> {
    const h: Record<string, string> = { 'user-agent': this.base.userAgent ?? 'roster' };
    // The token goes only to the API's own origin, never to a CDN or another host, unless the
    // request says so (a media download from a host the admin allowed: cdnAuth).
    const sendToken = spec.token ?? url.origin === this.base.origin;
    if (sendToken && this.base.token) h.authorization = `Basic ${this.base.token}`;
    if (this.base.runId && url.origin === this.base.origin) h['roster-run-id'] = this.base.runId;
    h.accept = spec.endpoint ? JSON_TYPE : '*/*';
    if (hasJson(spec)) h['content-type'] = JSON_TYPE;
    for (const [, , header, entry] of used) h[header] = mediaTypeOf(entry, this.types.vendor);
    if (spec.contentType) h['content-type'] = spec.contentType;
    if (spec.contentLength !== undefined) h['content-length'] = String(spec.contentLength);
    return { ...h, ...spec.headers };
  }

  /** The body for the content type in use (some types require fields: `jsonFor`). */
  payload(spec: RequestSpec, used: Used): RawBody | undefined {
    if (spec.jsonFor) {
      const entry = used.find(([, , h]) => h === 'content-type')?.[3];
      return Buffer.from(JSON.stringify(spec.jsonFor(entry, this.types.vendor)));
    }
    return spec.json !== undefined ? Buffer.from(JSON.stringify(spec.json)) : spec.body;
  }
}
