/**
 * Which media type the client sends, per endpoint, method and header: what this base URL
 * accepted before (remembered by the caller, e.g. in the CLI's config dir), else what the
 * service's catalog (`GET /api`) offers, else the built-in choice for the vendor word. After a
 * 406 or 415 it steps down: to a type the answer offers (not the one it repeats), to the
 * catalog, to the next registered type, or to a known vendor word not tried yet.
 */
import { ENDPOINTS, type EndpointDescriptor } from '../contract/endpoints/index.js';
import {
  clientChoices,
  clientUsable,
  DEFAULT_VENDOR,
  defaultChoice,
  type Endpoint,
  entryForMediaType,
  type Header,
  KNOWN_VENDORS,
  type Method,
  mediaTypeOf,
  registryOf,
  VENDOR_WORD,
  type VersionEntry,
  vendorsNamedIn,
} from '../contract/versions.js';

/** What is known about one base URL. */
export interface Remembered {
  /** The vendor word the service answered to. */
  vendor?: string;
  /** Whether `GET /api` answered with a catalog; absent: not asked yet. */
  catalog?: boolean;
  /** `METHOD endpoint header` → the media type to send. */
  types?: Record<string, string>;
}

/** Where the choices of each base URL are kept between runs (the CLI: its config dir). */
export interface MediaTypeMemory {
  load(baseUrl: string): Remembered | undefined;
  save(baseUrl: string, value: Remembered): void;
}

/** One catalog row of `GET /api`. */
interface CatalogRow {
  endpoint?: unknown;
  method?: unknown;
  header?: unknown;
  mediaType?: unknown;
}

export const keyOf = (endpoint: Endpoint, method: Method, header: Header) =>
  `${method} ${endpoint} ${header}`;

const HEADER_NAMES: Record<string, Header> = { accept: 'accept', 'content-type': 'content-type' };

/** The picks a catalog gives: per key, the best client choice it lists. */
export function typesFromCatalog(
  data: unknown,
): { vendor: string; types: Record<string, string> } | undefined {
  const about = data as { vendor?: unknown; versions?: unknown } | undefined;
  if (typeof about?.vendor !== 'string' || !Array.isArray(about.versions)) return undefined;
  // A word that cannot go into a header is no catalog of a service this client can talk to.
  if (!VENDOR_WORD.test(about.vendor)) return undefined;
  const vendor = about.vendor;
  const offered = new Set<string>();
  for (const row of about.versions as (CatalogRow | null)[]) {
    if (typeof row !== 'object' || row === null || typeof row.header !== 'string') continue;
    const header = HEADER_NAMES[row.header.toLowerCase()];
    if (!header || typeof row.mediaType !== 'string') continue;
    offered.add(`${row.method} ${row.endpoint} ${header} ${row.mediaType.toLowerCase()}`);
  }
  const types: Record<string, string> = {};
  for (const key of allKeys()) {
    const [method, endpoint, header] = key.split(' ') as [Method, Endpoint, Header];
    const pick = clientChoices(endpoint, method, header).find((e) =>
      offered.has(`${key} ${mediaTypeOf(e, vendor).toLowerCase()}`),
    );
    if (pick) types[key] = mediaTypeOf(pick, vendor);
  }
  return { vendor, types };
}

/**
 * Every `METHOD endpoint header` whose media type the client negotiates: each header of each
 * endpoint declared (contract/endpoints/) with a version the client can use.
 */
export function negotiatedKeys(endpoints: readonly EndpointDescriptor[]): string[] {
  const keys = registryOf(endpoints)
    .filter(clientUsable)
    .map((e) => keyOf(e.endpoint, e.method, e.header));
  return [...new Set(keys)];
}

const allKeys = () => negotiatedKeys(ENDPOINTS);

/** The choices for one base URL, as they stand; `step` and `learn` change them. */
export class MediaTypes {
  vendor: string;
  catalog: boolean | undefined;
  private types: Record<string, string>;
  /** Changed by a step down, not yet saved (it is, once a request succeeds with it). */
  private stepped = false;

  constructor(
    private readonly baseUrl: string,
    explicitVendor: string | undefined,
    private readonly memory?: MediaTypeMemory,
  ) {
    let remembered: Remembered | undefined;
    try {
      remembered = memory?.load(baseUrl);
    } catch {
      // An unreadable memory file only costs a catalog request or a step down.
    }
    // The memory is a file anyone may have edited: take only what has the right shape.
    const vendor = remembered?.vendor;
    this.vendor =
      explicitVendor ??
      (typeof vendor === 'string' && VENDOR_WORD.test(vendor) ? vendor : DEFAULT_VENDOR);
    this.catalog = typeof remembered?.catalog === 'boolean' ? remembered.catalog : undefined;
    const types = remembered?.types;
    this.types =
      typeof types === 'object' && types !== null
        ? Object.fromEntries(Object.entries(types).filter(([, v]) => typeof v === 'string'))
        : {};
  }

  /** The entry to send for this key, for the current vendor. */
  choose(endpoint: Endpoint, method: Method, header: Header): VersionEntry {
    const remembered = this.types[keyOf(endpoint, method, header)];
    const choices = clientChoices(endpoint, method, header);
    const known = remembered && entryForMediaType(choices, remembered, this.vendor);
    return known || defaultChoice(endpoint, method, header, KNOWN_VENDORS[this.vendor]);
  }

  /** Whether nothing is known yet about what this key's type should be. */
  unknown(endpoint: Endpoint, method: Method, header: Header): boolean {
    return this.types[keyOf(endpoint, method, header)] === undefined;
  }

  /** Takes a catalog's answer (or `undefined`: the service has none). */
  useCatalog(data: unknown): boolean {
    const parsed = typesFromCatalog(data);
    this.catalog = parsed !== undefined;
    if (parsed) {
      this.vendor = parsed.vendor;
      this.types = parsed.types;
    }
    this.save();
    return this.catalog;
  }

  /**
   * After a 406 (Accept) or 415 (Content-Type) to the media type `failed`: moves to another
   * choice and says whether there is one. `message` is the service's error text; `triedVendors`
   * the vendor words this request already failed with.
   */
  step(
    endpoint: Endpoint,
    method: Method,
    header: Header,
    failed: string,
    message: string,
    triedVendors: ReadonlySet<string> = new Set([this.vendor]),
  ) {
    this.stepped = true;
    const key = keyOf(endpoint, method, header);
    const choices = clientChoices(endpoint, method, header);
    const tried = failed.toLowerCase();
    // 1. The answer names vendor words: take the best type it lists, or at least its vendor.
    // Only what it offers counts: the platform's message repeats the type that was asked for,
    // and the vendor word in that echo is this client's own guess.
    const text = message.toLowerCase().split(tried).join(' ');
    const named = vendorsNamedIn(text);
    for (const vendor of named) {
      const listed = choices.find((e) => {
        const type = mediaTypeOf(e, vendor).toLowerCase();
        return type !== tried && text.includes(type);
      });
      if (listed || vendor !== this.vendor) {
        this.switchVendor(vendor);
        if (listed) this.types[key] = mediaTypeOf(listed, vendor);
        return true;
      }
    }
    if (named.length > 0) return false;
    // 2. The next registered type of this vendor.
    const current = entryForMediaType(choices, failed, this.vendor);
    const next = current ? choices[choices.indexOf(current) + 1] : undefined;
    if (next) {
      this.types[key] = mediaTypeOf(next, this.vendor);
      return true;
    }
    // 3. A known vendor word not tried yet, in the table's order, whichever was tried first.
    const following = Object.keys(KNOWN_VENDORS).find(
      (v) => v !== this.vendor && !triedVendors.has(v),
    );
    if (!following) return false;
    this.switchVendor(following);
    return true;
  }

  private switchVendor(vendor: string) {
    if (vendor === this.vendor) return;
    this.vendor = vendor;
    // Types of another vendor word say nothing about this one.
    this.types = {};
  }

  /** A request with these entries succeeded: remember them for this base URL. */
  learn(used: [Endpoint, Method, Header, VersionEntry][]) {
    let changed = this.stepped;
    this.stepped = false;
    for (const [endpoint, method, header, entry] of used) {
      const key = keyOf(endpoint, method, header);
      const type = mediaTypeOf(entry, this.vendor);
      if (this.types[key] !== type) {
        this.types[key] = type;
        changed = true;
      }
    }
    if (changed) this.save();
  }

  private save() {
    try {
      this.memory?.save(this.baseUrl, {
        vendor: this.vendor,
        ...(this.catalog !== undefined ? { catalog: this.catalog } : {}),
        types: this.types,
      });
    } catch {
      // Not being able to remember costs a step down next time, not this command.
    }
  }
}
