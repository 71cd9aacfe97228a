/**
 * Rows as both backends' tables hold them (the same column names on SQLite and PostgreSQL),
 * and the store's types made of them.
 */
import type { Channel, Scope } from '../../contract/scopes.js';
import type { Branch, QueuedMessage, Tenant, Token } from '../types.js';

export type TenantRow = {
  id: number;
  host: string;
  created_at: string;
  public_url: string | null;
  quota_bytes: number | null;
  /** 0/1 on SQLite, a boolean on PostgreSQL. */
  scim_invitations: number | boolean;
};
export type BranchRow = { id: number; tenant_id: number; name: string; created_at: string };
export type TokenRow = {
  id: string;
  branch_id: number;
  name: string;
  scopes: string;
  /** Comma-separated, as scopes are. */
  channels: string;
  secret_hash: Buffer;
  created_at: string;
  revoked_at: string | null;
};
export type OutboxRow = {
  id: number;
  message_id: string;
  recipient: string;
  file_name: string;
  message: string;
  attempts: number;
};

export const tenantOf = (r: TenantRow): Tenant => ({
  id: r.id,
  host: r.host,
  createdAt: r.created_at,
  publicUrl: r.public_url,
  quotaBytes: r.quota_bytes,
  scimInvitations: Boolean(r.scim_invitations),
});

export const branchOf = (r: BranchRow): Branch => ({
  id: r.id,
  tenantId: r.tenant_id,
  name: r.name,
  createdAt: r.created_at,
});

export const tokenOf = (r: TokenRow): Token => ({
  id: r.id,
  branchId: r.branch_id,
  name: r.name,
  scopes: r.scopes.split(',').filter(Boolean) as Scope[],
  channels: r.channels.split(',').filter(Boolean) as Channel[],
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
});

export const queuedOf = (r: OutboxRow): QueuedMessage => ({
  id: r.id,
  messageId: r.message_id,
  recipient: r.recipient,
  fileName: r.file_name,
  message: r.message,
  attempts: r.attempts,
});
