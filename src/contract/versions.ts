/**
 * The media-type registry: endpoint × method × header × version × stage. It drives the server's
 * negotiation, the client's headers, `GET /api` and the OpenAPI document, so a version is added
 * here and nowhere else.
 */

export type Stage = 'beta' | 'production' | 'deprecated';
export type Endpoint = '/users' | '/users/{userId}' | '/media' | '/media/{mediumID}';
export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
/** Which header carries the version: Accept (response shape) or Content-Type (request shape). */
export type Header = 'accept' | 'content-type';
/** The user shape a version carries: flat (v1), nested with plain strings (v2), current (v3). */
export type Shape = 'flat' | 'v2' | 'v3' | 'json';

export interface VersionEntry {
  endpoint: Endpoint;
  method: Method;
  header: Header;
  /** `null` for the oldest version, which is plain `application/json`. */
  entity: 'user' | 'users' | null;
  version: string;
  stage: Stage;
  shape: Shape;
}

export const DEFAULT_VENDOR = 'service';
export const JSON_TYPE = 'application/json';

type Row = [entity: VersionEntry['entity'], version: string, stage: Stage, shape: Shape];

const USER_RESPONSE: Row[] = [
  [null, 'v1', 'production', 'flat'],
  ['user', 'v2', 'deprecated', 'v2'],
  ['user', 'v3', 'production', 'v3'],
];
const USER_REQUEST = USER_RESPONSE;
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
  ['/users', 'POST', 'content-type', USER_REQUEST],
  ['/users/{userId}', 'GET', 'accept', USER_RESPONSE],
  ['/users/{userId}', 'PUT', 'accept', USER_RESPONSE],
  ['/users/{userId}', 'PUT', 'content-type', USER_REQUEST],
  ['/users/{userId}', 'DELETE', 'accept', PLAIN],
  ['/media', 'GET', 'accept', PLAIN],
  ['/media', 'POST', 'accept', PLAIN],
  ['/media/{mediumID}', 'GET', 'accept', PLAIN],
  ['/media/{mediumID}', 'DELETE', 'accept', PLAIN],
];

export const REGISTRY: readonly VersionEntry[] = TABLE.flatMap(([endpoint, method, header, rows]) =>
  rows.map(([entity, version, stage, shape]) => ({
    endpoint,
    method,
    header,
    entity,
    version,
    stage,
    shape,
  })),
);

/** The versions of one endpoint, method and header, oldest first. */
export function versionsOf(endpoint: Endpoint, method: Method, header: Header): VersionEntry[] {
  return REGISTRY.filter(
    (e) => e.endpoint === endpoint && e.method === method && e.header === header,
  );
}

/** The newest non-beta version: what a client sends by default. */
export function newestVersion(endpoint: Endpoint, method: Method, header: Header): VersionEntry {
  const entries = versionsOf(endpoint, method, header);
  const stable = entries.filter((e) => e.stage !== 'beta');
  const pick = stable.at(-1) ?? entries.at(-1);
  if (!pick) throw new Error(`no version registered for ${method} ${endpoint} (${header})`);
  return pick;
}

export function mediaTypeOf(entry: VersionEntry, vendor: string = DEFAULT_VENDOR): string {
  if (entry.entity === null) return JSON_TYPE;
  return `application/vnd.${vendor}.accessors.${entry.entity}.${entry.version}+json`;
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
