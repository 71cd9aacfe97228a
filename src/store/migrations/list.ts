/**
 * Every schema migration of both backends, in order, declared once (steps.ts; docs/architecture.md
 * "Migrations"). Never edit or reorder a released one: append. A backend's versions are the
 * migrations it takes, counted in order (`only` marks one the other backend has not), so its
 * databases at any version upgrade as they always did (test/store/migrations-schema.test.ts).
 */
import * as pg from '../postgres/schema-sql.js';
import * as sqlite from '../sqlite/schema-sql.js';
import {
  addColumn,
  createIndex,
  createTable,
  type Migration,
  on,
  perDialect,
  sql,
} from './steps.js';

/**
 * One row per stored file; the blob keys name the files in the BlobStore. A row is written
 * only after its files are durable, and deleted before they are (see media.service).
 */
const MEDIA = [
  createTable('media', {
    rowid: { type: 'rowid' },
    id: { type: 'text', bytewise: true, notNull: true, unique: true },
    tenant_id: { type: 'bigint', notNull: true, references: 'tenants(id)' },
    branch_id: { type: 'bigint', notNull: true, references: 'branches(id)' },
    owner_id: { type: 'text', notNull: true },
    file_name: { type: 'text', notNull: true },
    blob_key: { type: 'text', notNull: true },
    type: { type: 'text', notNull: true },
    format: { type: 'text', notNull: true },
    mime_type: { type: 'text', notNull: true },
    bytes: { type: 'bigint', notNull: true },
    width: { type: 'integer' },
    height: { type: 'integer' },
    duration: { type: 'real' },
    preview_key: { type: 'text' },
    preview_format: { type: 'text' },
    preview_mime_type: { type: 'text' },
    preview_bytes: { type: 'bigint' },
    preview_width: { type: 'integer' },
    preview_height: { type: 'integer' },
    created_at: { type: 'text', notNull: true },
  }),
  createIndex('media_by_branch', 'media', ['branch_id', 'id']),
];
const MEDIA_BY_TENANT = createIndex('media_by_tenant', 'media', ['tenant_id']);

/**
 * Invitations, written in the same transaction as their user and delivered from here by
 * whichever replica claims them (at least once; message_id lets a receiver drop a duplicate).
 */
const OUTBOX = createTable('outbox', {
  id: { type: 'rowid' },
  message_id: { type: 'text', notNull: true, unique: true },
  recipient: { type: 'text', notNull: true },
  file_name: { type: 'text', notNull: true },
  message: { type: 'text', notNull: true },
  created_at: { type: 'text', notNull: true },
  attempts: { type: 'integer', notNull: true, default: 0 },
  next_attempt_at: { type: 'bigint', notNull: true },
  last_error: { type: 'text' },
});

export const MIGRATIONS: Migration[] = [
  {
    why: 'tenants, branches, tokens, users and their search; on PostgreSQL all of SQLite 1–5',
    steps: [
      perDialect({ sqlite: sqlite.BASE, postgres: pg.BASE }),
      on('postgres', ...MEDIA, MEDIA_BY_TENANT, OUTBOX, sql(pg.OUTBOX_DUE), sql(pg.RATE_BUCKETS)),
    ],
  },
  { why: 'media', only: 'sqlite', steps: MEDIA },
  {
    why: 'the default order with status in its index',
    only: 'sqlite',
    steps: [sql(sqlite.USERS_BY_NAME_STATUS)],
  },
  {
    // Per-tenant settings every replica must see: the public URL for absolute links (never
    // the Host header of a named tenant) and the storage quota in bytes (NULL: serve's default).
    why: "tenants' public URL and quota",
    only: 'sqlite',
    steps: [
      addColumn('tenants', 'public_url', { type: 'text' }),
      addColumn('tenants', 'quota_bytes', { type: 'bigint' }),
      MEDIA_BY_TENANT,
    ],
  },
  { why: 'the invitations outbox', only: 'sqlite', steps: [OUTBOX, sql(sqlite.OUTBOX_DUE)] },
  { why: 'search counts from FTS5 alone', only: 'sqlite', steps: [sql(sqlite.USERS_FTS_SCOPE)] },
  {
    why: 'one number that changes with any credential',
    only: 'postgres',
    steps: [sql(pg.CREDENTIALS_EPOCH)],
  },
  {
    // A counter of each user's writes, for ETags (SCIM and REST If-Match): a timestamp could
    // repeat within its precision, a counter cannot. Existing users start at 1. A constant
    // default is stored in PostgreSQL's catalog, so this does not rewrite the table.
    why: "users' write counter",
    steps: [addColumn('users', 'version', { type: 'integer', notNull: true, default: 1 })],
  },
  {
    // Whether users SCIM creates get an invitation mail (an identity provider usually signs
    // them in itself): off unless the tenant says so.
    why: 'SCIM invitations per tenant',
    steps: [
      addColumn('tenants', 'scim_invitations', { type: 'boolean', notNull: true, default: false }),
    ],
  },
  {
    why: 'an index per sort key (keyset order: NOCASE on SQLite, sort keys on PostgreSQL)',
    steps: [perDialect({ sqlite: sqlite.SORT_INDEXES, postgres: pg.SORT_INDEXES })],
  },
  {
    why: "each branch's users by status, kept by triggers",
    steps: [perDialect({ sqlite: sqlite.USER_COUNTS, postgres: pg.USER_COUNTS })],
  },
  {
    why: 'a one-letter prefix in the FTS5 prefix index',
    only: 'sqlite',
    steps: [sql(sqlite.USERS_FTS_ONE_LETTER)],
  },
  {
    // The event log (docs/events.md): one row per change, written in the change's transaction
    // (on PostgreSQL numbered last under the tenant's advisory lock, events.repo.ts, so that
    // sequence order is commit order). A sequence is never given twice, even after pruning
    // emptied the table, so a follower's cursor stays valid. Times as ISO text, compared as
    // text. The indexes give a first page, a target's, a type's and a run's.
    why: 'the event log',
    steps: [
      createTable('events', {
        sequence: { type: 'sequence' },
        id: { type: 'text', bytewise: true, notNull: true, unique: true },
        tenant_id: { type: 'bigint', notNull: true },
        branch_id: { type: 'bigint', notNull: true },
        type: { type: 'text', bytewise: true, notNull: true },
        occurred_at: { type: 'text', bytewise: true, notNull: true },
        actor_type: { type: 'text', notNull: true },
        actor_id: { type: 'text' },
        actor_name: { type: 'text' },
        channel: { type: 'text', notNull: true },
        request_id: { type: 'text', notNull: true },
        run: { type: 'text', bytewise: true },
        target_type: { type: 'text', notNull: true },
        target_id: { type: 'text', bytewise: true, notNull: true },
        target_external_id: { type: 'text' },
        target_email: { type: 'text' },
        changes: { type: 'text' },
      }),
      createIndex('events_by_branch', 'events', ['branch_id', 'sequence']),
      createIndex('events_by_target', 'events', ['branch_id', 'target_id', 'sequence']),
      createIndex('events_by_type', 'events', ['branch_id', 'type', 'sequence']),
      createIndex('events_by_run', 'events', ['branch_id', 'run', 'sequence'], {
        where: 'run IS NOT NULL',
      }),
      createIndex('events_by_time', 'events', ['occurred_at']),
      perDialect({ sqlite: sqlite.EVERY_SCOPE_TOKENS, postgres: pg.EVERY_SCOPE_TOKENS }),
    ],
  },
  {
    // Where each token works (contract/scopes.ts CHANNELS): every new token names its own.
    // Tokens made before had no such mark and worked on /api and /scim alike; they keep doing
    // so (a SCIM integration that stopped provisioning would fail unseen), and `tokens list`
    // shows it.
    why: "tokens' channels",
    steps: [addColumn('tokens', 'channels', { type: 'text', notNull: true, default: 'api,scim' })],
  },
  {
    why: 'email and userName compare in NFKC (contract/identity.ts): existing keys refolded',
    steps: [perDialect({ sqlite: sqlite.refoldIdentities, postgres: pg.refoldIdentities })],
  },
  {
    // The login name is the userName, else the email (what SCIM serves as userName): unique
    // among the tenant's live users, so no userName can be another user's email-derived one,
    // even between two concurrent writes. Pairs made before this rule are both kept: the newer
    // is marked in login_dup (its rowid) and so sits beside the older in the index; new rows
    // get 0.
    why: 'a userName derived from the email counts for uniqueness (contract/identity.ts loginName)',
    steps: [
      addColumn('users', 'login_dup', { type: 'bigint', notNull: true, default: 0 }),
      sql(`
  -- Grouped, not a correlated EXISTS: that compared every user with every other (23 s at
  -- 20,000 users here); this sorts once (0.2 s at 200,000) and joins only the repeated logins.
  UPDATE users SET login_dup = rowid WHERE rowid IN (
    SELECT u.rowid FROM (
      SELECT tenant_id, coalesce(user_name_norm, email_norm) AS login, min(rowid) AS first
      FROM users WHERE status <> 'deleted' AND coalesce(user_name_norm, email_norm) IS NOT NULL
      GROUP BY 1, 2 HAVING count(*) > 1
    ) d JOIN users u ON u.tenant_id = d.tenant_id AND u.status <> 'deleted'
      AND coalesce(u.user_name_norm, u.email_norm) = d.login AND u.rowid > d.first);`),
      perDialect({ sqlite: sqlite.USERS_LOGIN, postgres: pg.USERS_LOGIN }),
    ],
  },
  {
    why: 'search folds ß, ø, đ, ł, æ, œ as PostgreSQL does (PostgreSQL: unaccent already did)',
    only: 'sqlite',
    steps: [sql(sqlite.USERS_FTS_SPELLED_OUT)],
  },
  {
    // Webhook endpoints and their deliveries (docs/events.md, "Webhooks"). `cursor` is the last
    // event sequence the fan-out looked at for the endpoint; a delivery is one (event,
    // endpoint), due at next_attempt_at (ms), claimed by lease_owner until lease_until (on
    // PostgreSQL with FOR UPDATE SKIP LOCKED). One delivery per (endpoint, event): the fan-out
    // inserts with ON CONFLICT DO NOTHING, so a replayed fan-out adds none twice.
    why: 'webhook endpoints and their deliveries',
    steps: [
      createTable('webhooks', {
        id: { type: 'text', bytewise: true, primaryKey: true },
        tenant_id: { type: 'bigint', notNull: true },
        branch_id: { type: 'bigint', notNull: true },
        url: { type: 'text', notNull: true },
        types: { type: 'text', notNull: true },
        description: { type: 'text', notNull: true },
        enabled: { type: 'boolean', notNull: true },
        disabled_reason: { type: 'text' },
        secret: { type: 'text', notNull: true },
        previous_secret: { type: 'text' },
        previous_expires_at: { type: 'bigint' },
        cursor: { type: 'bigint', notNull: true, default: 0 },
        failing_since: { type: 'bigint' },
        created_at: { type: 'text', bytewise: true, notNull: true },
        updated_at: { type: 'text', bytewise: true, notNull: true },
      }),
      createIndex('webhooks_by_branch', 'webhooks', ['branch_id', 'created_at']),
      createTable('webhook_deliveries', {
        id: { type: 'text', bytewise: true, primaryKey: true },
        webhook_id: { type: 'text', bytewise: true, notNull: true },
        event_id: { type: 'text', bytewise: true, notNull: true },
        type: { type: 'text', notNull: true },
        body: { type: 'text', notNull: true },
        status: { type: 'text', notNull: true },
        attempts: { type: 'integer', notNull: true, default: 0 },
        last_attempt_at: { type: 'bigint' },
        last_status: { type: 'integer' },
        last_error: { type: 'text' },
        last_duration_ms: { type: 'bigint' },
        next_attempt_at: { type: 'bigint' },
        lease_until: { type: 'bigint' },
        lease_owner: { type: 'text' },
        created_at: { type: 'text', bytewise: true, notNull: true },
      }),
      createIndex('webhook_deliveries_once', 'webhook_deliveries', ['webhook_id', 'event_id'], {
        unique: true,
      }),
      createIndex('webhook_deliveries_due', 'webhook_deliveries', ['next_attempt_at'], {
        where: "status = 'pending'",
      }),
      // A claim reads each endpoint's first due deliveries: never a scan of every pending one.
      createIndex(
        'webhook_deliveries_due_by_webhook',
        'webhook_deliveries',
        ['webhook_id', 'next_attempt_at'],
        { where: "status = 'pending'" },
      ),
      createIndex('webhook_deliveries_by_webhook', 'webhook_deliveries', ['webhook_id', 'id']),
    ],
  },
  {
    why: 'the users without an email, in the order of each key that can follow email in a sort',
    steps: [perDialect({ sqlite: sqlite.USERS_WITHOUT_EMAIL, postgres: pg.USERS_WITHOUT_EMAIL })],
  },
  {
    // The per-branch counts' function in PL/pgSQL: as LANGUAGE sql it was parsed and planned
    // again in every user insert's trigger (pg/schema-sql.ts COUNT_USER_PLPGSQL; issue 40).
    why: "users' counts kept by a PL/pgSQL function, its plan kept per connection",
    only: 'postgres',
    steps: [sql(pg.COUNT_USER_PLPGSQL)],
  },
  {
    // An event's lock and row as one call: the INSERT sent as literals was parsed and planned
    // at every write (pg/schema-sql.ts RECORD_EVENT; issue 40).
    why: "an event's numbering lock and row in one function, its plan kept per connection",
    only: 'postgres',
    steps: [sql(pg.RECORD_EVENT)],
  },
  {
    // Pruning deleted from events_by_target a page per event (sqlite/schema-sql.ts
    // EVENT_TARGETS; issue 40). PostgreSQL's deletes run beside the writes, not in their
    // process: its write p99 while pruning is 1.67x idle with the index kept.
    why: "a target's events in a table the pruner tidies in its own order",
    only: 'sqlite',
    steps: [sql(sqlite.EVENT_TARGETS)],
  },
  {
    // A search matching many users walks its order's index and checks each row's words there:
    // building the set of matches first cost query=M 50 ms at 1M (sqlite/users-list.ts
    // wordsWalk; issue 41). PostgreSQL checks the row's own tsvector.
    why: "each user's search words, as the full-text index holds them, in a column of the user's row",
    only: 'sqlite',
    steps: [
      sql('ALTER TABLE users ADD COLUMN words TEXT;'),
      perDialect({ sqlite: sqlite.usersWords, postgres: null }),
    ],
  },
  {
    // One previous secret was overwritten by a second rotation within 24 h, so the first's old
    // secret stopped signing at once (server/webhooks/secrets.ts). previous_secret stays, the
    // newest of the list, for replicas of the release before.
    why: 'every secret a rotation replaced that still signs, not only the last',
    steps: [sql('ALTER TABLE webhooks ADD COLUMN retired_secrets TEXT;')],
  },
  {
    // A manual retry during an attempt was overwritten when that attempt settled. The settle
    // compares this count with the one its claim read (webhooks.repo.ts RETRIED_MEANWHILE).
    why: "how many times a delivery was retried by hand, so an attempt's outcome keeps a retry made meanwhile",
    steps: [sql('ALTER TABLE webhook_deliveries ADD COLUMN retries INTEGER NOT NULL DEFAULT 0;')],
  },
];
