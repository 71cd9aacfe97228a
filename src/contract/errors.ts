/**
 * The error envelope and its identifiers: the one table both ends read, so the server answers
 * with exactly what the client maps back to a typed error.
 */

export const ERRORS = {
  validation: { statusCode: 400, identifier: 40000, type: 'ValidationException' },
  notLoggedIn: { statusCode: 401, identifier: 40102, type: 'NotLoggedInException' },
  accessDenied: { statusCode: 403, identifier: 40308, type: 'AccessDeniedException' },
  notFound: { statusCode: 404, identifier: 40408, type: 'NotFoundException' },
  methodNotAllowed: { statusCode: 405, identifier: 40500, type: 'MethodNotAllowedException' },
  notAcceptable: { statusCode: 406, identifier: 40600, type: 'NotAcceptableException' },
  conflict: { statusCode: 409, identifier: 40900, type: 'ConflictException' },
  preconditionFailed: {
    statusCode: 412,
    identifier: 41200,
    type: 'PreconditionFailedException',
  },
  payloadTooLarge: { statusCode: 413, identifier: 41300, type: 'PayloadTooLargeException' },
  unsupportedMediaType: {
    statusCode: 415,
    identifier: 41500,
    type: 'UnsupportedMediaTypeException',
  },
  requestTimeout: { statusCode: 408, identifier: 40800, type: 'RequestTimeoutException' },
  tooManyRequests: { statusCode: 429, identifier: 42900, type: 'TooManyRequestsException' },
  headersTooLarge: {
    statusCode: 431,
    identifier: 43100,
    type: 'RequestHeaderFieldsTooLargeException',
  },
  internal: { statusCode: 500, identifier: 50000, type: 'InternalServerErrorException' },
  notImplemented: { statusCode: 501, identifier: 50100, type: 'NotImplementedException' },
  serviceUnavailable: {
    statusCode: 503,
    identifier: 50300,
    type: 'ServiceUnavailableException',
  },
  insufficientStorage: {
    statusCode: 507,
    identifier: 50700,
    type: 'InsufficientStorageException',
  },
} as const;

export type ErrorKind = keyof typeof ERRORS;

/**
 * A Roster extension on a 503: `Roster-Outcome: unknown` when the write may have been made (the
 * connection to the database went after the commit was sent). Without it, a create or update
 * answered 503 by Roster was not made. A client looks before it repeats a write that is not
 * idempotent (client/made-user.ts).
 */
export const OUTCOME_HEADER = 'Roster-Outcome';

/** One problem with one input field, as listed in a 400's `details`. */
export interface FieldIssue {
  field: string;
  message: string;
}

/**
 * An issue in words: the field, then what is wrong with it ("email is not a valid address"),
 * or the message alone where it already begins with the field ("email or userName is required").
 */
export const issueText = (issue: FieldIssue) =>
  issue.message.startsWith(`${issue.field} `) ? issue.message : `${issue.field} ${issue.message}`;

/** The body of every error answer. */
export interface ErrorEnvelope {
  identifier: number;
  statusCode: number;
  message: string;
  type: string;
  details?: FieldIssue[];
}

export function errorEnvelope(kind: ErrorKind, message: string, details?: FieldIssue[]) {
  const envelope: ErrorEnvelope = { ...ERRORS[kind], message };
  if (details && details.length > 0) envelope.details = details;
  return envelope;
}

/** True when a parsed JSON body has the envelope's shape (a proxy's HTML error page does not). */
export function isErrorEnvelope(body: unknown): body is ErrorEnvelope {
  if (typeof body !== 'object' || body === null) return false;
  const b = body as Record<string, unknown>;
  return (
    typeof b.identifier === 'number' &&
    typeof b.statusCode === 'number' &&
    typeof b.message === 'string' &&
    typeof b.type === 'string'
  );
}
