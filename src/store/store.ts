/**
 * The store seam: everything the service keeps, behind one async interface with two backends,
 * SQLite (a data dir, the zero-setup default) and PostgreSQL (shared by N replicas).
 *
 * Every method is one atomic step. A read-decide-write runs inside the store with the decision
 * as a pure, synchronous function (`users.update`), so SQLite runs it inside one immediate
 * transaction and PostgreSQL under `SELECT … FOR UPDATE`: nothing interleaves on either. Slow
 * work (hashing, previews, file I/O) happens before a store call, never inside one.
 */
import type { IdentityField } from '../contract/identity.js';
import type { BlobStore } from './blobs/blob-store.js';
import type { DiskReserve } from './data-dir/reserve.js';
import type {
  Audit,
  Branch,
  Credentials,
  EventFilter,
  EventPage,
  ListFilter,
  MediumKeys,
  MediumRow,
  NewMediumRow,
  NewUserRow,
  OutboxMessage,
  PlacedMediumRow,
  QueuedMessage,
  Tenant,
  Token,
  UserColumns,
  UserPage,
  UserRow,
  UserView,
} from './types.js';
import type {
  ClaimedDelivery,
  ClaimRequest,
  DeliveryRow,
  NewWebhookRow,
  Settled,
  SettledAs,
  Settlement,
  WebhookColumns,
  WebhookRow,
} from './webhook-types.js';

export interface TenantsRepo {
  /** The tenant claiming `host`, else the catch-all tenant `*` when it exists. */
  resolve(host: string): Promise<Tenant | undefined>;
  byHost(host: string): Promise<Tenant | undefined>;
  list(): Promise<Tenant[]>;
  /** Adds a tenant and its root branch `main` together. */
  add(host: string): Promise<Tenant>;
  /** Sets (or with null clears) a tenant's public URL; false when there is no such tenant. */
  setPublicUrl(host: string, url: string | null): Promise<boolean>;
  /** Sets (or with null clears) a tenant's storage quota; false when there is no such tenant. */
  setQuota(host: string, bytes: number | null): Promise<boolean>;
  /** Whether SCIM-created users get an invitation mail; false when there is no such tenant. */
  setScimInvitations(host: string, on: boolean): Promise<boolean>;
}

export interface BranchesRepo {
  byName(tenantId: number, name: string): Promise<Branch | undefined>;
  byId(id: number): Promise<Branch | undefined>;
  list(tenantId: number): Promise<Branch[]>;
  add(tenantId: number, name: string): Promise<Branch>;
}

export interface TokensRepo {
  /** Creates a token; the returned string is shown once and never stored. */
  create(
    branchId: number,
    name: string,
    scopes: Token['scopes'],
    channels: Token['channels'],
    audit: Audit,
  ): Promise<{ token: Token; secret: string }>;
  list(): Promise<(Token & { branch: string; tenant: string })[]>;
  /** The live token the string names, or undefined (unknown, wrong secret or revoked). */
  authenticate(tokenString: string): Promise<Token | undefined>;
  /** Revokes a token; false when no live token has that id. */
  revoke(id: string, audit: Audit): Promise<boolean>;
}

export interface CredentialsRepo {
  /**
   * Who a request is: the tenant of `host` and the live token named by `tokenString`, when the
   * token belongs to that tenant; else undefined. Exact on every call: a token revoked by any
   * process or replica fails on its very next request.
   */
  resolve(host: string, tokenString: string): Promise<Credentials | undefined>;
}

export interface UsersRepo {
  /** A live user of the branch by id, else by externalId: the columns an answer shows. */
  find(branchId: number, key: string): Promise<UserView | undefined>;
  /**
   * A live user of the branch by one unique key, `key` in its compared form
   * (contract/identity.ts), through the tenant's unique index on it.
   */
  findBy(
    tenantId: number,
    branchId: number,
    field: IdentityField,
    key: string,
  ): Promise<UserView | undefined>;
  /**
   * Inserts a user and, in the same transaction, the invitation announcing them: a crash
   * leaves both or neither, so a committed user is always invited. Its event too.
   */
  insert(row: NewUserRow, audit: Audit, invitation?: OutboxMessage): Promise<UserRow>;
  /**
   * Reads the live user `key` of the branch, asks `decide` for the changes and writes them, as
   * one step. `decide` is pure and synchronous (it may throw to refuse); undefined when there
   * is no such user. The event of what changed is written with it (none when nothing did).
   */
  update(
    branchId: number,
    key: string,
    decide: (row: UserRow) => Partial<UserColumns>,
    audit: Audit,
  ): Promise<UserRow | undefined>;
  /**
   * A page of the branch's users; `next`: the position of its last row when more follow (a
   * later page with `after` set to it continues exactly there, whatever was written between).
   */
  list(filter: ListFilter): Promise<UserPage>;
}

export interface MediaRepo {
  /**
   * Inserts a medium unless its tenant would then use more than `quotaBytes` (files and
   * previews), checked and written as one step; then answers what the tenant uses.
   */
  insert(
    row: NewMediumRow,
    audit: Audit,
    quotaBytes?: number,
  ): Promise<{ inserted: MediumRow } | { used: number }>;
  /** A medium of the branch (other branches' media do not exist for it). */
  find(branchId: number, id: string): Promise<MediumRow | undefined>;
  /** A medium by id alone, with its tenant and branch names: the CDN route checks them. */
  placed(id: string): Promise<PlacedMediumRow | undefined>;
  list(
    branchId: number,
    limit: number,
    offset: number,
  ): Promise<{ total: number; rows: MediumRow[] }>;
  remove(rowid: number, audit: Audit): Promise<boolean>;
  /** Bytes a tenant's media (files and previews) take, for its quota. */
  bytesUsed(tenantId: number): Promise<number>;
  /** Every row's blob keys, for the start-up sweep. */
  allKeys(): Promise<MediumKeys[]>;
  /** Forgets a preview whose file is gone (start-up sweep). */
  dropPreview(rowid: number): Promise<void>;
}

/**
 * The event log. Nothing here writes an event: each write above records its own, in its own
 * transaction (docs/architecture.md, "One write path").
 */
export interface EventsRepo {
  /**
   * A page of a branch's events in sequence order. An event is listed only once every event
   * of its tenant with a lower sequence has committed or rolled back (docs/events.md).
   */
  list(filter: EventFilter): Promise<EventPage>;
  /** Deletes at most `limit` of the oldest events before `before` (ISO); how many went. */
  prune(before: string, limit: number): Promise<number>;
  /**
   * Tidies what pruning leaves behind, about `limit` entries after `after` (from the start
   * without it); where the next call goes on (opaque), or undefined once all were looked at.
   * Only a store whose pruning leaves something (SQLite: event_targets) has one.
   */
  sweep?(limit: number, after?: string): Promise<string | undefined>;
  /** Calls `listener` after this process commits an event; answers the unsubscribe. */
  subscribe(listener: () => void): () => void;
}

/**
 * Webhook endpoints and their deliveries. Every change to an endpoint records its event in its
 * own transaction (webhook.created / updated / deleted). Deliveries are made by `fanOut`, which
 * follows the event log by sequence with a cursor per endpoint (the same never-miss reading
 * `GET /api/events` gives a follower), and claimed with a lease so each one is in flight in one
 * process at a time and a process that dies mid-attempt only delays it (docs/events.md).
 */
export interface WebhooksRepo {
  /** Adds an endpoint; it is sent the events after its own webhook.created. */
  create(row: NewWebhookRow, audit: Audit): Promise<WebhookRow>;
  list(branchId: number): Promise<WebhookRow[]>;
  find(branchId: number, id: string): Promise<WebhookRow | undefined>;
  /**
   * Reads the endpoint, asks `decide` for the changes and writes them, with their event, as
   * one step (none when nothing changed); undefined when there is no such endpoint. Enabling a
   * disabled endpoint moves its cursor to the log's end: what happened meanwhile is not sent.
   */
  update(
    branchId: number,
    id: string,
    decide: (row: WebhookRow) => Partial<WebhookColumns>,
    audit: Audit,
  ): Promise<WebhookRow | undefined>;
  /** Removes an endpoint and its deliveries; false when there is no such endpoint. */
  remove(branchId: number, id: string, audit: Audit): Promise<boolean>;
  /**
   * For each enabled endpoint: the events after its cursor (at most `limit`) become delivery
   * rows where it subscribes to their type, and the cursor moves past them, in one
   * transaction. Answers how many deliveries were made, and whether some endpoint's page was
   * full (`more`: events may be left after its cursor, whatever their types).
   */
  fanOut(now: number, limit: number): Promise<{ made: number; more: boolean }>;
  /** Adds a delivery of its own (a test) to an endpoint of the branch; undefined if none. */
  addDelivery(
    branchId: number,
    webhookId: string,
    delivery: { eventId: string; type: string; body: string },
    now: number,
  ): Promise<DeliveryRow | undefined>;
  /** Claims due deliveries of enabled endpoints, leased for `leaseMs` (see ClaimRequest). */
  claim(request: ClaimRequest): Promise<ClaimedDelivery[]>;
  /** Records an attempt's outcome; disabling the endpoint records its webhook.updated. */
  settle(delivery: ClaimedDelivery, settlement: Settlement, audit: Audit): Promise<void>;
  /**
   * Records several attempts' outcomes in one transaction, as `settle` would one after the
   * other in this order (the worker's group commit: one commit per batch, not per delivery).
   */
  settleAll(settled: readonly Settled[], audit: Audit): Promise<Map<string, SettledAs>>;
  /** An endpoint's deliveries, newest first; undefined when there is no such endpoint. */
  deliveries(
    branchId: number,
    webhookId: string,
    limit: number,
  ): Promise<DeliveryRow[] | undefined>;
  /** Makes a delivery due now again (and pending, if it was given up). */
  retry(
    branchId: number,
    webhookId: string,
    deliveryId: string,
    now: number,
  ): Promise<DeliveryRow | undefined>;
  /** When the next pending delivery of an enabled endpoint falls due (ms), if any. */
  nextDue(): Promise<number | undefined>;
  /**
   * Deletes at most `limit` settled deliveries (delivered or given up) made before `before`
   * (ISO); pending ones stay whatever their age. How many went.
   */
  prune(before: string, limit: number): Promise<number>;
}

export interface MetaRepo {
  /** The value under `key`, created with `make()` on first use (first writer wins). */
  getOrCreate(key: string, make: () => string): Promise<string>;
}

export interface OutboxRepo {
  /**
   * Claims the messages due at `now`, oldest first: they fall due again only `claimMs` later,
   * so no other process sends them meanwhile, and one that died leaves them to the others.
   */
  due(now: number, claimMs: number, limit?: number): Promise<QueuedMessage[]>;
  /** When the next message falls due (ms since the epoch), or undefined when none waits. */
  nextDue(): Promise<number | undefined>;
  delivered(id: number): Promise<void>;
  failed(id: number, error: string, nextAttemptAt: number): Promise<void>;
  pending(): Promise<number>;
  /**
   * Drops a user's invitation not yet delivered (one being sent right now may still go);
   * how many were dropped.
   */
  cancelInvitation(userId: string): Promise<number>;
}

export interface RateLimits {
  /**
   * Takes one request from the bucket `key` (`perSecond` requests, refilled at `perSecond`
   * a second): 0 when it was there, else the whole seconds to wait. Shared by every process
   * on the same database.
   */
  take(key: string, perSecond: number, now: number): Promise<number>;
}

export interface StorePolicy {
  /**
   * Other processes (replicas) use the same database at the same time: it is named by its URL,
   * not a data dir, and rows may name files another replica keeps.
   */
  sharedDatabase: boolean;
  /**
   * Other processes write to the same blob store at the same time: a file without a row may be
   * another replica's upload about to commit.
   */
  sharedBlobs: boolean;
  /**
   * A statement runs on this process's event loop (better-sqlite3 is synchronous): no request
   * is served while one runs, so background work of many statements is paced.
   */
  blockingStatements: boolean;
}

export interface Store {
  readonly engine: 'sqlite' | 'postgres';
  /** Where the data is, for messages (never with a password). */
  readonly location: string;
  /** What other processes may be doing here meanwhile: callers ask this, not which engine it is. */
  readonly policy: StorePolicy;
  tenants: TenantsRepo;
  branches: BranchesRepo;
  tokens: TokensRepo;
  credentials: CredentialsRepo;
  users: UsersRepo;
  media: MediaRepo;
  events: EventsRepo;
  webhooks: WebhooksRepo;
  meta: MetaRepo;
  /** Messages (invitations) waiting for delivery. */
  outbox: OutboxRepo;
  rateLimits: RateLimits;
  /** The media files. */
  blobs: BlobStore;
  /** Room kept for deletes and revocations on a full disk (see data-dir/reserve.ts). */
  reserve: DiskReserve;
  /** What was looser than it should be when the store opened (and has been tightened). */
  permissionWarnings: string[];
  /**
   * On an empty store: the catch-all tenant `*`, its `main` branch and an admin token with
   * every scope, as one step. Returns the token string when it was created (it is never
   * retrievable again); undefined when the store already had tenants. The token's event names
   * the system as its actor.
   */
  bootstrap(): Promise<{ adminToken: string } | undefined>;
  /**
   * The right to sweep media, one process at a time across replicas: a release function, or
   * undefined when another process is sweeping now.
   */
  trySweepLock(): Promise<(() => Promise<void>) | undefined>;
  /** Connections of the pool by state, for /metrics (PostgreSQL; SQLite has no pool). */
  poolStats?(): { total: number; idle: number; waiting: number };
  /**
   * Resolves when the database answers now and takes writes; rejects (StoreUnavailableError)
   * when it does not (unreachable, or a read-only standby).
   */
  ping(): Promise<void>;
  close(): Promise<void>;
}
