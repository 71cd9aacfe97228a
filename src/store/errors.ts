/** Errors every backend raises in the same shape, so the service maps them once. */

/** A write would break a uniqueness rule; names the field. */
export class UniqueViolationError extends Error {
  constructor(readonly field: 'externalId' | 'email' | 'userName' | 'host' | 'branch') {
    super(`${field} is already in use`);
    this.name = 'UniqueViolationError';
  }
}

/**
 * The database cannot answer now (unreachable, restarting, a statement timeout): the request
 * may succeed when retried, so the API answers 503 with Retry-After.
 */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/**
 * The connection was lost after COMMIT was sent and before its answer came: the change may or
 * may not have been made. Unavailable as its parent (503), but a client must look before it
 * repeats a write that is not idempotent (a create would meet itself: 409).
 */
export class CommitOutcomeUnknownError extends StoreUnavailableError {
  override name = 'CommitOutcomeUnknownError';
}
