/**
 * The media-type registry: endpoint × method × header × version × stage. It drives the server's
 * negotiation, the client's headers, `GET /api` and the OpenAPI document. Its rows are the
 * endpoints' own (contract/endpoints/): a version is added in its endpoint's declaration.
 */

import {
  ENDPOINTS,
  type Endpoint,
  type EndpointDescriptor,
  type Method,
} from './endpoints/index.js';

export type { Endpoint, Method } from './endpoints/index.js';
export type Stage = 'beta' | 'production' | 'deprecated';
/** Which header carries the version: Accept (response shape) or Content-Type (request shape). */
export type Header = 'accept' | 'content-type';
/** The user shape a version carries: flat (v1), nested with plain strings (v2), current (v3). */
export type Shape = 'flat' | 'v2' | 'v3' | 'json';
/**
 * The entity word of a versioned type. `user-invite` and `user-update` are the real platform's
 * request types for creating and changing a user: the current (v3) shape under another name.
 */
export type Entity = 'user' | 'users' | 'user-invite' | 'user-update';
/**
 * Which kind of server offers a version: every one is Roster's own; the real platform (and
 * `roster serve --like-platform`, which imitates it) offers those marked `platform`.
 */
export type ServerKind = 'roster' | 'platform';

export interface VersionEntry {
  endpoint: Endpoint;
  method: Method;
  header: Header;
  /** `null` for the oldest version, which is plain `application/json`. */
  entity: Entity | null;
  version: string;
  stage: Stage;
  shape: Shape;
  /** Body fields (dotted paths) this request type requires beyond the shape's own rules. */
  requires?: readonly string[];
  /** Whether the real platform offers it too (see ServerKind). */
  platform: boolean;
}

export const DEFAULT_VENDOR = 'service';
/** What a vendor word may be: it goes into Accept and Content-Type headers as it is. */
export const VENDOR_WORD = /^[a-z0-9][a-z0-9-]{0,62}$/i;
export const JSON_TYPE = 'application/json';

/**
 * Vendor words the client knows without asking (CONTRACT), and which kind of server each names:
 * `service` is the interface's own word, `staffbase` the real platform's.
 */
export const KNOWN_VENDORS: Readonly<Record<string, ServerKind>> = {
  service: 'roster',
  staffbase: 'platform',
};

/**
 * The rows of the endpoints' declarations (contract/endpoints/), one entry per version, in their
 * order: answers before bodies, per endpoint.
 */
export function registryOf(endpoints: readonly EndpointDescriptor[]): VersionEntry[] {
  return endpoints.flatMap((d) =>
    (
      [
        ['accept', d.versions.accept],
        ['content-type', d.versions.contentType ?? []],
      ] as const
    ).flatMap(([header, rows]) =>
      rows.map(([entity, version, stage, shape, extras = {}]) => ({
        endpoint: d.path as Endpoint,
        method: d.method,
        header,
        entity,
        version,
        stage,
        shape,
        ...(extras.requires ? { requires: extras.requires } : {}),
        platform: !extras.rosterOnly,
      })),
    ),
  );
}

export const REGISTRY: readonly VersionEntry[] = registryOf(ENDPOINTS);

/** Whether a server of this kind offers the version. */
export const offeredBy = (entry: VersionEntry, kind: ServerKind) =>
  kind === 'roster' || entry.platform;

/** The versions of one endpoint, method and header, oldest first (of `registry`'s). */
export function versionsOf(
  endpoint: Endpoint,
  method: Method,
  header: Header,
  registry: readonly VersionEntry[] = REGISTRY,
): VersionEntry[] {
  return registry.filter(
    (e) => e.endpoint === endpoint && e.method === method && e.header === header,
  );
}

/** Whether a client reads and writes the version's shape: the current one, or plain JSON. */
export const clientUsable = (e: VersionEntry) => e.shape === 'v3' || e.shape === 'json';

/**
 * The versions a client can use, best first: those whose shape the client reads and writes (the
 * current shape, or plain JSON where that is all there is); stable before deprecated, no extra
 * required fields before some, Roster's own line before the platform's names, newest first.
 */
export function clientChoices(endpoint: Endpoint, method: Method, header: Header): VersionEntry[] {
  const entries = versionsOf(endpoint, method, header);
  const usable = entries.filter(clientUsable);
  const rank = (e: VersionEntry) => [
    e.stage === 'deprecated' ? 1 : 0,
    e.requires ? 1 : 0,
    e.entity === 'user-invite' || e.entity === 'user-update' ? 1 : 0,
    -entries.indexOf(e),
  ];
  return usable.sort((a, b) => {
    const ra = rank(a);
    const rb = rank(b);
    return ra.reduce((d, x, i) => d || x - rb[i]!, 0);
  });
}

/** What a client sends to a server of this kind when nothing better is known. */
export function defaultChoice(
  endpoint: Endpoint,
  method: Method,
  header: Header,
  kind: ServerKind = 'roster',
): VersionEntry {
  const pick = clientChoices(endpoint, method, header).find((e) => offeredBy(e, kind));
  if (!pick) throw new Error(`no version registered for ${method} ${endpoint} (${header})`);
  return pick;
}

export function mediaTypeOf(entry: VersionEntry, vendor: string = DEFAULT_VENDOR): string {
  if (entry.entity === null) return JSON_TYPE;
  return `application/vnd.${vendor}.accessors.${entry.entity}.${entry.version}+json`;
}

/**
 * The vendor words named in a text (a 406 or 415 message listing supported types), in order.
 */
export function vendorsNamedIn(text: string): string[] {
  const words = [...text.matchAll(/application\/vnd\.([a-z0-9][a-z0-9-]*)\.accessors\./gi)];
  return [...new Set(words.map((m) => m[1]!.toLowerCase()))];
}

/** The entry whose media type equals `mediaType` (case-insensitive, parameters ignored). */
export function entryForMediaType(
  entries: readonly VersionEntry[],
  mediaType: string,
  vendor: string = DEFAULT_VENDOR,
): VersionEntry | undefined {
  const wanted = mediaType.split(';')[0]!.trim().toLowerCase();
  return entries.find((e) => mediaTypeOf(e, vendor).toLowerCase() === wanted);
}

/**
 * The dotted paths of `requires` (a registry row's, e.g. `role`, `config.locale`) that a body in
 * the current shape leaves out or null. The server answers 400 for them; the client fills them
 * from a profile's defaults first.
 */
export function missingRequired(body: object, requires: readonly string[] = []): string[] {
  const at = (path: string) =>
    path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | null)?.[k], body);
  return requires.filter((path) => at(path) == null);
}
