/**
 * The media-type registry: endpoint × method × header × version × stage. It drives the server's
 * negotiation, the client's headers, `GET /api` and the OpenAPI document, so a version is added
 * here and nowhere else.
 */

export type Stage = 'beta' | 'production' | 'deprecated';
export type Endpoint = '/users' | '/users/{userId}' | '/media' | '/media/{mediumID}' | '/events';
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
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

interface RowExtras {
  requires?: readonly string[];
  /** Offered by Roster only, not by the real platform. */
  rosterOnly?: boolean;
}
type Row = [
  entity: VersionEntry['entity'],
  version: string,
  stage: Stage,
  shape: Shape,
  extras?: RowExtras,
];

const ROSTER_ONLY = { rosterOnly: true } as const;

const USER_RESPONSE: Row[] = [
  [null, 'v1', 'production', 'flat'],
  ['user', 'v2', 'deprecated', 'v2', ROSTER_ONLY],
  ['user', 'v3', 'production', 'v3'],
];
const PLAIN: Row[] = [[null, 'v1', 'production', 'json']];

const TABLE: [Endpoint, Method, Header, Row[]][] = [
  [
    '/users',
    'GET',
    'accept',
    [
      [null, 'v1', 'production', 'flat'],
      ['users', 'v2', 'production', 'v3'],
    ],
  ],
  ['/users', 'POST', 'accept', USER_RESPONSE],
  [
    '/users',
    'POST',
    'content-type',
    [
      [null, 'v1', 'production', 'flat', ROSTER_ONLY],
      ['user', 'v2', 'deprecated', 'v2', ROSTER_ONLY],
      ['user', 'v3', 'production', 'v3', ROSTER_ONLY],
      ['user-invite', 'v2', 'production', 'v3', { requires: ['role', 'config.locale'] }],
    ],
  ],
  ['/users/{userId}', 'GET', 'accept', USER_RESPONSE],
  ['/users/{userId}', 'PUT', 'accept', USER_RESPONSE],
  [
    '/users/{userId}',
    'PUT',
    'content-type',
    [
      [null, 'v1', 'production', 'flat'],
      ['user', 'v2', 'deprecated', 'v2', ROSTER_ONLY],
      ['user', 'v3', 'production', 'v3', ROSTER_ONLY],
      ['user-update', 'v1', 'production', 'v3'],
    ],
  ],
  ['/users/{userId}', 'DELETE', 'accept', PLAIN],
  ['/media', 'GET', 'accept', PLAIN],
  ['/media', 'POST', 'accept', PLAIN],
  ['/media/{mediumID}', 'GET', 'accept', PLAIN],
  ['/media/{mediumID}', 'DELETE', 'accept', PLAIN],
  // The event log (docs/events.md): Roster's own, the platform has none.
  ['/events', 'GET', 'accept', [[null, 'v1', 'production', 'json', ROSTER_ONLY]]],
];

export const REGISTRY: readonly VersionEntry[] = TABLE.flatMap(([endpoint, method, header, rows]) =>
  rows.map(([entity, version, stage, shape, extras = {}]) => ({
    endpoint,
    method,
    header,
    entity,
    version,
    stage,
    shape,
    ...(extras.requires ? { requires: extras.requires } : {}),
    platform: !extras.rosterOnly,
  })),
);

/** Whether a server of this kind offers the version. */
export const offeredBy = (entry: VersionEntry, kind: ServerKind) =>
  kind === 'roster' || entry.platform;

/** The versions of one endpoint, method and header, oldest first. */
export function versionsOf(endpoint: Endpoint, method: Method, header: Header): VersionEntry[] {
  return REGISTRY.filter(
    (e) => e.endpoint === endpoint && e.method === method && e.header === header,
  );
}

/**
 * The versions a client can use, best first: those whose shape the client reads and writes (the
 * current shape, or plain JSON where that is all there is); stable before deprecated, no extra
 * required fields before some, Roster's own line before the platform's names, newest first.
 */
export function clientChoices(endpoint: Endpoint, method: Method, header: Header): VersionEntry[] {
  const entries = versionsOf(endpoint, method, header);
  const usable = entries.filter((e) => e.shape === 'v3' || e.shape === 'json');
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
