/**
 * What one endpoint declares, once: method, path, scope, versions, what its OpenAPI operation
 * says and which client function calls it. The versions registry, the scopes, the OpenAPI
 * document, the client's negotiation, `roster api`'s matching and the Allow answers are all
 * derived from these (contract/endpoints/index.ts). Plain data: the CLI loads it at start, so
 * nothing here may import zod or the server; the OpenAPI side resolves the names it gives
 * (schemas, query parameters) in server/api/openapi-operations.ts.
 */
import type { ErrorKind } from '../errors.js';
import type { Scope } from '../scopes.js';
import type { Entity, Shape, Stage } from '../versions.js';

/** PATCH: none of the interface's endpoints, but Roster's own may (the webhooks' update). */
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RowExtras {
  /** Body fields (dotted paths) this request type requires beyond the shape's own rules. */
  requires?: readonly string[];
  /** Offered by Roster only, not by the real platform. */
  rosterOnly?: boolean;
}

/** One version of an endpoint's request or answer: `null` entity is plain application/json. */
export type VersionRow = readonly [
  entity: Entity | null,
  version: string,
  stage: Stage,
  shape: Shape,
  extras?: RowExtras,
];

export interface OpenApiMeta {
  operationId: string;
  summary: string;
  description?: string;
  tag: 'Users' | 'Media' | 'Events' | 'Webhooks';
  success: '200' | '201' | '202' | '204';
  /**
   * The success body: a schema of the document's components, the negotiated version's user
   * shape (one user, or a page of them), or none.
   */
  body: { readonly schema: string } | { readonly user: 'one' | 'page' } | null;
  /** The query parameters, by the contract schema that reads them (openapi-operations.ts). */
  query?: 'userList' | 'page' | 'events';
  /** Headers of the success answer besides X-Request-Id. */
  headers?: readonly ('Link' | 'Location')[];
  /** A multipart/form-data upload (a `file` part and an optional `metaData` part). */
  upload?: boolean;
  /**
   * A plain application/json body (no versions to negotiate: `versions.contentType` is for the
   * user shapes), by the name of its schema in the document's components.
   */
  jsonBody?: string;
  errors: readonly ErrorKind[];
}

export interface EndpointDescriptor {
  method: Method;
  /** Under the API's base URL (`/api`), with `{name}` for each path parameter. */
  path: string;
  /** The scope it needs, and how a token without it is answered (the interface: 401 or 403). */
  scope: readonly [Scope, 401 | 403];
  /** Its media types, oldest first: answers (Accept) and, where it takes JSON, bodies. */
  versions: {
    readonly accept: readonly VersionRow[];
    readonly contentType?: readonly VersionRow[];
  };
  /** It also takes the form encodings (urlencoded, multipart) as a body: PUT /users/{userId}. */
  forms?: boolean;
  openapi: OpenApiMeta;
  /** The client function (src/client/) that calls it; a test checks it exists. */
  client: string;
}

/** Every authenticated, negotiated API operation can answer these. */
export const API_ERRORS: readonly ErrorKind[] = [
  'notLoggedIn',
  'notAcceptable',
  'tooManyRequests',
  'internal',
];
export const UNAVAILABLE: readonly ErrorKind[] = ['serviceUnavailable'];
/** What reading a request body can add. */
export const BODY_ERRORS: readonly ErrorKind[] = [
  'validation',
  'requestTimeout',
  'payloadTooLarge',
  'unsupportedMediaType',
  'insufficientStorage',
];

export const ROSTER_ONLY = { rosterOnly: true } as const;
