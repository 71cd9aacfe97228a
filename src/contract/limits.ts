/**
 * What one user may hold (CONTRACT "Users"). The bounds keep every user, and so every list page,
 * small: a 1,000-user page stays far below the client's 64 MiB cap on a JSON answer.
 */
import type { FieldIssue } from './errors.js';

export const MAX_CUSTOM_FIELDS = 100;
export const MAX_CUSTOM_KEY = 64;
export const MAX_CUSTOM_VALUE = 1000;
export const MAX_CUSTOM_BYTES = 16 * 1024;

/** C0 and C1 control characters and DEL: they run as terminal escapes on an admin's screen. */
const CONTROL = /\p{Cc}/u;
export const CONTROL_MESSAGE = 'must not contain control characters';
export const hasControlChars = (s: string) => CONTROL.test(s);

const utf8 = new TextEncoder();
const customBytes = (fields: Record<string, string>) => utf8.encode(JSON.stringify(fields)).length;

/**
 * The issue with a user's custom fields after a change, or null. Only a change that grows them
 * is refused, so a user stored before these bounds existed still reads and can be trimmed.
 */
export function customFieldsIssue(
  before: Record<string, string>,
  after: Record<string, string>,
): FieldIssue | null {
  const count = Object.keys(after).length;
  if (count > MAX_CUSTOM_FIELDS && count > Object.keys(before).length) {
    return {
      field: 'profile',
      message: `may hold at most ${MAX_CUSTOM_FIELDS} custom fields (this change makes ${count})`,
    };
  }
  const bytes = customBytes(after);
  if (bytes > MAX_CUSTOM_BYTES && bytes > customBytes(before)) {
    return {
      field: 'profile',
      message: `custom fields may hold at most 16 KiB together (this change makes ${(bytes / 1024).toFixed(1)} KiB)`,
    };
  }
  return null;
}
