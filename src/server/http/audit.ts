/**
 * The `audit` of a request: who writes (the token's id and name, never its value), through which
 * channel, for which request and run. Every write the request makes records its event from
 * this (docs/architecture.md, "One write path").
 */
import { type Channel, RUN_ID, RUN_ID_HEADER } from '../../contract/events.js';
import type { Audit, Token } from '../../store/types.js';
import { validationError } from '../errors.js';

/**
 * `Roster-Run-Id` is client input that goes into events and their filters: a short token of
 * safe characters, else a 400 (a client that sends one means it, so it is not dropped).
 */
export function runIdOf(given: string | undefined): string | undefined {
  if (given === undefined || given === '') return undefined;
  if (!RUN_ID.test(given)) {
    throw validationError([
      {
        field: RUN_ID_HEADER,
        message: 'must be 1 to 64 characters of A-Z, a-z, 0-9, ".", "_", ":" or "-"',
      },
    ]);
  }
  return given;
}

export function requestAudit(
  token: Pick<Token, 'id' | 'name'>,
  channel: Channel,
  requestId: string,
  runHeader: string | undefined,
): Audit {
  const run = runIdOf(runHeader);
  return {
    actor: { type: 'token', id: token.id, name: token.name },
    channel,
    requestId,
    ...(run ? { run } : {}),
  };
}
