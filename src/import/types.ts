/** Types shared by the import engine's stages. */
import type { ApiClient } from '../client/index.js';

/** The client calls the engine makes (a real ApiClient in use, the same against a test app). */
export type ImportClient = Pick<
  ApiClient,
  'iterateUsers' | 'listUsers' | 'getUser' | 'createUser' | 'updateUser'
>;

/** The field that says which file row is which user. */
export const MATCH_FIELDS = ['externalId', 'email'] as const;
export type MatchField = (typeof MATCH_FIELDS)[number];

/**
 * What a row (or a user absent from the file) leads to. `leaver`: the row's status column marks
 * someone who has left; they are never created or invited (`deactivate` with --sync).
 */
export type Action = 'create' | 'update' | 'unchanged' | 'deactivate' | 'leaver' | 'error' | 'skip';

/** The scripting shape of `users import -o json`. */
export interface Summary {
  created: number;
  updated: number;
  unchanged: number;
  deactivated: number;
  failed: number;
  rows: number;
  /** Rows the status column marks as leavers (present only when the file has one). */
  leavers?: number;
  /**
   * An interrupted run only: the rows (and --sync deactivations) not applied. The other counts
   * are then what was applied, not what the plan held for rows never reached.
   */
  remaining?: number;
  /** Rows a `--resume` report marked done (present only with --resume). */
  skipped?: number;
  /**
   * Invitations the service accepted to send (a run), or would be asked to (a dry run): one per
   * new user with an email, unless --no-send-mail. Queued by the service, not yet delivered.
   */
  invitations?: number;
}
