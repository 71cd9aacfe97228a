/**
 * Checks a user body with the contract's own schemas before it is sent, so a bad email or
 * role is a usage error naming the flag (exit 2) instead of a 400 from the service.
 */
import type { FieldIssue } from '../../../contract/errors.js';
import { LOGIN_REQUIRED } from '../../../contract/identity.js';
import { isWriteOnly, USER_FIELDS } from '../../../contract/user-fields.js';
import { usageError } from '../../errors.js';
import { getPath, nearest } from '../../output/fields.js';
import { safeText } from '../../output/text-safe.js';
import type { Body } from './patch.js';

/** Values never echoed back in a message: the write-only fields (secrets). */
const SECRET_FIELDS: ReadonlySet<string> = new Set(
  USER_FIELDS.filter(isWriteOnly).map((f) => f.body),
);

function describe(
  issue: FieldIssue,
  body: Body,
  flagOf: (field: string) => string,
  operation: 'create' | 'update',
): string {
  if (issue.message === LOGIN_REQUIRED.message) {
    return `${flagOf('email')} or ${flagOf('userName')} is required`;
  }
  const value = getPath(body, issue.field);
  // The value helps when it is wrong, not when the key is (unknown or read-only field).
  const aboutKey = /is read-only|is not a known field/.test(issue.message);
  const shown =
    typeof value === 'string' && !aboutKey && !SECRET_FIELDS.has(issue.field)
      ? ` '${safeText(value)}'`
      : '';
  // An empty value is how people try to clear a field; updates clear with --unset.
  const clear =
    value === '' && flagOf(issue.field).startsWith('--set ') && operation === 'update'
      ? `; to clear it: --unset ${issue.field}`
      : '';
  return `${flagOf(issue.field)}${shown}: ${issue.message}${clear}${guessFor(issue)}`;
}

/** For an unknown field, the user field it is nearest to (by name or path), as `--fields` does. */
function guessFor(issue: FieldIssue): string {
  if (issue.message !== 'is not a known field') return '';
  const last = issue.field.split('.').at(-1)!;
  const byName = new Map<string, string>(
    USER_FIELDS.flatMap((f) => [[f.name, f.body] as const, [f.body, f.body] as const]),
  );
  const guess = nearest(issue.field, [...byName.keys()]) ?? nearest(last, [...byName.keys()]);
  return guess ? `; did you mean ${byName.get(guess)}?` : '';
}

export async function validateUserBody(
  operation: 'create' | 'update',
  body: Body,
  flagOf: (field: string) => string = (field) => `--set ${field}`,
): Promise<void> {
  const { parseUserBody } = await import('../../../contract/user-input.js');
  const result = parseUserBody('v3', operation, body);
  if (result.ok) return;
  const lines = result.issues.map((issue) => describe(issue, body, flagOf, operation));
  throw usageError(lines.join('; '));
}
