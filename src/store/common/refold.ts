/**
 * Migration step: the stored compared form (`email_norm`, `user_name_norm`) of users written
 * before email and userName compared in NFKC (contract/identity.ts), brought to the current
 * rule, on either backend. Only a value with a non-ASCII character can fold otherwise (ASCII
 * is NFKC already), so only those rows are read. Two live users of one tenant whose values
 * now fold alike (look-alikes made before the rule) are both kept: the older gets the folded
 * key, the newer keeps its old one (a unique index would refuse both, and a start-up that
 * fails on data it cannot fix is worse); the newer is still found by id and in lists.
 */
import { type IdentityField, identityKey } from '../../contract/identity.js';

/** The identity fields whose compared form moved, with their value and norm columns. */
export const REFOLDED: readonly { field: IdentityField; column: string; norm: string }[] = [
  { field: 'email', column: 'email', norm: 'email_norm' },
  { field: 'userName', column: 'user_name', norm: 'user_name_norm' },
];

export interface RefoldRow {
  rowid: number;
  tenant_id: number;
  value: string;
  norm: string | null;
}

/** The rows whose norm changes, each with its new one, in the order they are to be written. */
export function refolds(field: IdentityField, rows: RefoldRow[]) {
  return rows
    .map((r) => ({ ...r, next: identityKey(field, r.value) }))
    .filter((r) => r.next !== r.norm)
    .sort((a, b) => a.rowid - b.rowid);
}
