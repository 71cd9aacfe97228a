/** Schema migrations, applied in order; never edit a released one, append a new one. */
import { REFOLDED, type RefoldRow, refolds } from '../common/refold.js';
import type { Db } from './db.js';

/**
 * The users' full-text index with its triggers, (re)built from the users table: migration 6
 * made it, 11 rebuilt it with a one-letter prefix index (FTS5 has no ALTER for its options).
 * Each user's branch and status are one more token (`scope`, see migration 6).
 */
const usersFts = (prefix: string) => `  DROP TRIGGER users_fts_insert;
  DROP TRIGGER users_fts_delete;
  DROP TRIGGER users_fts_update;
  DROP TABLE users_fts;
  CREATE VIRTUAL TABLE users_fts USING fts5 (
    first_name, last_name, email, user_name, position, department, location, phone, scope,
    content = '', tokenize = 'unicode61 remove_diacritics 2', prefix = '${prefix}'
  );
  INSERT INTO users_fts (rowid, first_name, last_name, email, user_name, position, department, location, phone, scope)
    SELECT rowid, first_name, last_name, email, user_name, position, department, location, phone, 'b' || branch_id || status FROM users;
  CREATE TRIGGER users_fts_insert AFTER INSERT ON users BEGIN
    INSERT INTO users_fts (rowid, first_name, last_name, email, user_name, position, department, location, phone, scope)
    VALUES (new.rowid, new.first_name, new.last_name, new.email, new.user_name, new.position, new.department, new.location, new.phone, 'b' || new.branch_id || new.status);
  END;
  CREATE TRIGGER users_fts_delete AFTER DELETE ON users BEGIN
    INSERT INTO users_fts (users_fts, rowid, first_name, last_name, email, user_name, position, department, location, phone, scope)
    VALUES ('delete', old.rowid, old.first_name, old.last_name, old.email, old.user_name, old.position, old.department, old.location, old.phone, 'b' || old.branch_id || old.status);
  END;
  CREATE TRIGGER users_fts_update AFTER UPDATE OF first_name, last_name, email, user_name, position, department, location, phone, branch_id, status ON users BEGIN
    INSERT INTO users_fts (users_fts, rowid, first_name, last_name, email, user_name, position, department, location, phone, scope)
    VALUES ('delete', old.rowid, old.first_name, old.last_name, old.email, old.user_name, old.position, old.department, old.location, old.phone, 'b' || old.branch_id || old.status);
    INSERT INTO users_fts (rowid, first_name, last_name, email, user_name, position, department, location, phone, scope)
    VALUES (new.rowid, new.first_name, new.last_name, new.email, new.user_name, new.position, new.department, new.location, new.phone, 'b' || new.branch_id || new.status);
  END;`;

/**
 * A migration is SQL, or a step over the open database (in the migration's transaction) that
 * returns the statements it made, kept as long as the database (see db.ts).
 */
export type Migration = string | ((db: Db) => unknown[]);

/** Users' email_norm and user_name_norm in NFKC (common/refold.ts). */
function refoldIdentities(db: Db): unknown[] {
  const statements: unknown[] = [];
  for (const { field, column, norm } of REFOLDED) {
    const read = db.prepare<[], RefoldRow>(
      `SELECT rowid, tenant_id, ${column} AS value, ${norm} AS norm FROM users
       WHERE status <> 'deleted' AND ${column} GLOB '*[^ -~]*'`,
    );
    const write = db.prepare(
      `UPDATE users SET ${norm} = @next WHERE rowid = @rowid AND NOT EXISTS (
         SELECT 1 FROM users o WHERE o.tenant_id = @tenant_id AND o.${norm} = @next
           AND o.status <> 'deleted' AND o.rowid <> @rowid)`,
    );
    for (const r of refolds(field, read.all())) {
      write.run({ next: r.next, rowid: r.rowid, tenant_id: r.tenant_id });
    }
    statements.push(read, write);
  }
  return statements;
}

export const MIGRATIONS: Migration[] = [
  `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;

  CREATE TABLE tenants (
    id INTEGER PRIMARY KEY,
    host TEXT NOT NULL UNIQUE COLLATE NOCASE,
    created_at TEXT NOT NULL
  ) STRICT;

  CREATE TABLE branches (
    id INTEGER PRIMARY KEY,
    tenant_id INTEGER NOT NULL REFERENCES tenants(id),
    name TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (tenant_id, name)
  ) STRICT;

  CREATE TABLE tokens (
    id TEXT PRIMARY KEY,
    branch_id INTEGER NOT NULL REFERENCES branches(id),
    name TEXT NOT NULL,
    scopes TEXT NOT NULL,
    secret_hash BLOB NOT NULL,
    created_at TEXT NOT NULL,
    revoked_at TEXT
  ) STRICT;

  CREATE TABLE users (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    tenant_id INTEGER NOT NULL REFERENCES tenants(id),
    branch_id INTEGER NOT NULL REFERENCES branches(id),
    status TEXT NOT NULL,
    role TEXT,
    external_id TEXT,
    email TEXT,
    email_norm TEXT,
    user_name TEXT,
    user_name_norm TEXT,
    secret_hash TEXT,
    recovery_hash TEXT,
    recovery_expires INTEGER,
    locale TEXT,
    gender TEXT,
    first_name TEXT,
    last_name TEXT,
    public_email TEXT,
    phone TEXT,
    position TEXT,
    department TEXT,
    location TEXT,
    avatar TEXT,
    custom TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    activated_at TEXT
  ) STRICT;

  -- Unique among the tenant's users that are not deleted, so a removed user's keys can be reused.
  CREATE UNIQUE INDEX users_external_id ON users (tenant_id, external_id)
    WHERE status <> 'deleted' AND external_id IS NOT NULL;
  CREATE UNIQUE INDEX users_email ON users (tenant_id, email_norm)
    WHERE status <> 'deleted' AND email_norm IS NOT NULL;
  CREATE UNIQUE INDEX users_user_name ON users (tenant_id, user_name_norm)
    WHERE status <> 'deleted' AND user_name_norm IS NOT NULL;

  CREATE INDEX users_by_name ON users (branch_id, last_name COLLATE NOCASE, first_name COLLATE NOCASE);
  CREATE INDEX users_by_status ON users (branch_id, status);
  CREATE INDEX users_by_external_id ON users (branch_id, external_id);

  CREATE VIRTUAL TABLE users_fts USING fts5 (
    first_name, last_name, email, user_name, position, department, location, phone,
    content = 'users', content_rowid = 'rowid',
    tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
  );
  CREATE TRIGGER users_fts_insert AFTER INSERT ON users BEGIN
    INSERT INTO users_fts (rowid, first_name, last_name, email, user_name, position, department, location, phone)
    VALUES (new.rowid, new.first_name, new.last_name, new.email, new.user_name, new.position, new.department, new.location, new.phone);
  END;
  CREATE TRIGGER users_fts_delete AFTER DELETE ON users BEGIN
    INSERT INTO users_fts (users_fts, rowid, first_name, last_name, email, user_name, position, department, location, phone)
    VALUES ('delete', old.rowid, old.first_name, old.last_name, old.email, old.user_name, old.position, old.department, old.location, old.phone);
  END;
  CREATE TRIGGER users_fts_update AFTER UPDATE OF first_name, last_name, email, user_name, position, department, location, phone ON users BEGIN
    INSERT INTO users_fts (users_fts, rowid, first_name, last_name, email, user_name, position, department, location, phone)
    VALUES ('delete', old.rowid, old.first_name, old.last_name, old.email, old.user_name, old.position, old.department, old.location, old.phone);
    INSERT INTO users_fts (rowid, first_name, last_name, email, user_name, position, department, location, phone)
    VALUES (new.rowid, new.first_name, new.last_name, new.email, new.user_name, new.position, new.department, new.location, new.phone);
  END;
  `,
  // 2: media. One row per stored file; the blob keys name the files in the BlobStore. A row is
  // written only after its files are durable, and deleted before they are (see media.service).
  `
  CREATE TABLE media (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    tenant_id INTEGER NOT NULL REFERENCES tenants(id),
    branch_id INTEGER NOT NULL REFERENCES branches(id),
    owner_id TEXT NOT NULL,
    file_name TEXT NOT NULL,
    blob_key TEXT NOT NULL,
    type TEXT NOT NULL,
    format TEXT NOT NULL,
    mime_type TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    width INTEGER,
    height INTEGER,
    duration REAL,
    preview_key TEXT,
    preview_format TEXT,
    preview_mime_type TEXT,
    preview_bytes INTEGER,
    preview_width INTEGER,
    preview_height INTEGER,
    created_at TEXT NOT NULL
  ) STRICT;

  CREATE INDEX media_by_branch ON media (branch_id, id);
  `,
  `
  -- The default list order with status in the index: a page is then found from the index
  -- alone (deferred join), so deep offsets no longer read every skipped row.
  DROP INDEX users_by_name;
  CREATE INDEX users_by_name
    ON users (branch_id, last_name COLLATE NOCASE, first_name COLLATE NOCASE, status);
  `,
  `
  -- Per-tenant settings every replica must see: the public URL for absolute links (never the
  -- Host header of a named tenant) and the storage quota in bytes (NULL: the serve default).
  ALTER TABLE tenants ADD COLUMN public_url TEXT;
  ALTER TABLE tenants ADD COLUMN quota_bytes INTEGER;
  CREATE INDEX media_by_tenant ON media (tenant_id);
  `,
  `
  -- Invitations, written in the same transaction as their user and delivered from here until
  -- a transport takes them (at least once; message_id lets a receiver drop a duplicate).
  CREATE TABLE outbox (
    id INTEGER PRIMARY KEY,
    message_id TEXT NOT NULL UNIQUE,
    recipient TEXT NOT NULL,
    file_name TEXT NOT NULL,
    message TEXT NOT NULL,
    created_at TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    last_error TEXT
  ) STRICT;

  CREATE INDEX outbox_due ON outbox (next_attempt_at);
  `,
  `
  -- Search counts from the full-text index alone. Each user's branch and status are one more
  -- token of its entry (\`scope\`: 'b' || branch_id || status, as 'b1activated'), so "which users
  -- of this branch and status match" is an intersection inside FTS5 instead of a probe of the
  -- users table per match: counting query=M at 100,000 users 11.8 -> 2.4 ms. Contentless
  -- (nothing reads values back from it); a change deletes the old entry with its old values.
${usersFts('2 3')}
  `,
  `
  -- A counter of each user's writes, for ETags (SCIM and REST If-Match): a timestamp could
  -- repeat within its precision, a counter cannot. Existing users start at 1.
  ALTER TABLE users ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
  `,
  `
  -- Whether users SCIM creates get an invitation mail (an identity provider usually signs
  -- them in itself): off unless the tenant says so.
  ALTER TABLE tenants ADD COLUMN scim_invitations INTEGER NOT NULL DEFAULT 0;
  `,
  `
  -- An index per sort key that leads an order (names had one): a first page, and each range a
  -- cursor page reads (store/common/keyset.ts), is then a seek, not a sort of the branch. At
  -- 1,000,000 users a createdAt or email page was a scan and sort of every user. Status in
  -- each, so a status filter is answered from the index. externalId and status have theirs.
  CREATE INDEX users_by_first_name
    ON users (branch_id, first_name COLLATE NOCASE, last_name COLLATE NOCASE, status);
  CREATE INDEX users_by_created ON users (branch_id, created_at, status);
  CREATE INDEX users_by_email ON users (branch_id, email_norm, status);
  `,
  `
  -- Each branch's users by status, kept by triggers in the transaction of every write to users
  -- (so by every writer, the seed's included): a list's exact \`total\` without a filter other
  -- than status is then a sum of one to three rows. At 1,000,000 users count(*) was most of a
  -- first page's time (bench/README.md, "Figures from src/ comments").
  CREATE TABLE user_counts (
    branch_id INTEGER NOT NULL,
    status TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (branch_id, status)
  ) STRICT, WITHOUT ROWID;
  INSERT INTO user_counts (branch_id, status, n)
    SELECT branch_id, status, count(*) FROM users GROUP BY branch_id, status;
  CREATE TRIGGER user_counts_insert AFTER INSERT ON users BEGIN
    INSERT INTO user_counts (branch_id, status, n) VALUES (new.branch_id, new.status, 1)
      ON CONFLICT (branch_id, status) DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER user_counts_delete AFTER DELETE ON users BEGIN
    UPDATE user_counts SET n = n - 1 WHERE branch_id = old.branch_id AND status = old.status;
  END;
  CREATE TRIGGER user_counts_update AFTER UPDATE OF branch_id, status ON users
    WHEN old.branch_id IS NOT new.branch_id OR old.status IS NOT new.status BEGIN
    UPDATE user_counts SET n = n - 1 WHERE branch_id = old.branch_id AND status = old.status;
    INSERT INTO user_counts (branch_id, status, n) VALUES (new.branch_id, new.status, 1)
      ON CONFLICT (branch_id, status) DO UPDATE SET n = n + 1;
  END;
  `,
  `
  -- A one-letter prefix from a prefix index too ('1 2 3'; was '2 3'): below its shortest one,
  -- FTS5 merges the lists of every term the prefix begins before it can give a first match
  -- (bench/README.md, "Figures from src/ comments"). Rebuilt as migration 6 built it (FTS5 has
  -- no ALTER for its options).
${usersFts('1 2 3')}
  `,
  `
  -- The event log (docs/events.md): one row per change, written in the change's transaction.
  -- AUTOINCREMENT: a sequence is never given twice, even after pruning emptied the table, so a
  -- follower's cursor stays valid. The indexes give a first page, a target's and a type's.
  CREATE TABLE events (
    sequence INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    tenant_id INTEGER NOT NULL,
    branch_id INTEGER NOT NULL,
    type TEXT NOT NULL,
    occurred_at TEXT NOT NULL,
    actor_type TEXT NOT NULL,
    actor_id TEXT,
    actor_name TEXT,
    channel TEXT NOT NULL,
    request_id TEXT NOT NULL,
    run TEXT,
    target_type TEXT NOT NULL,
    target_id TEXT NOT NULL,
    target_external_id TEXT,
    target_email TEXT,
    changes TEXT
  ) STRICT;
  CREATE INDEX events_by_branch ON events (branch_id, sequence);
  CREATE INDEX events_by_target ON events (branch_id, target_id, sequence);
  CREATE INDEX events_by_type ON events (branch_id, type, sequence);
  CREATE INDEX events_by_run ON events (branch_id, run, sequence) WHERE run IS NOT NULL;
  CREATE INDEX events_by_time ON events (occurred_at);
  -- A token made with every scope there was gets the scopes added now (events:read,
  -- webhooks:write): "every scope" stays every scope, so the admin token can read events.
  UPDATE tokens SET scopes = scopes || ',events:read,webhooks:write'
    WHERE ',' || scopes || ',' LIKE '%,users:read,%' AND ',' || scopes || ',' LIKE '%,users:write,%'
      AND ',' || scopes || ',' LIKE '%,media:read,%' AND ',' || scopes || ',' LIKE '%,media:write,%';
  `,
  `
  -- Where each token works (contract/scopes.ts CHANNELS): every new token names its own. Tokens
  -- made before had no such mark and worked on /api and /scim alike; they keep doing so (a SCIM
  -- integration that stopped provisioning would fail unseen), and \`tokens list\` shows it.
  ALTER TABLE tokens ADD COLUMN channels TEXT NOT NULL DEFAULT 'api,scim';
  `,
  // email and userName compare in NFKC (contract/identity.ts): existing keys refolded.
  refoldIdentities,
  // A userName derived from the email counts for uniqueness (contract/identity.ts loginName).
  `
  -- The login name is the userName, else the email (what SCIM serves as userName): unique among
  -- the tenant's live users, so no userName can be another user's email-derived one, even
  -- between two concurrent writes. Pairs made before this rule are both kept: the newer is
  -- marked in login_dup (its rowid) and so sits beside the older in the index; new rows get 0.
  ALTER TABLE users ADD COLUMN login_dup INTEGER NOT NULL DEFAULT 0;
  -- Grouped, not a correlated EXISTS: that compared every user with every other (23 s at
  -- 20,000 users here); this sorts once (0.2 s at 200,000) and joins only the repeated logins.
  UPDATE users SET login_dup = rowid WHERE rowid IN (
    SELECT u.rowid FROM (
      SELECT tenant_id, coalesce(user_name_norm, email_norm) AS login, min(rowid) AS first
      FROM users WHERE status <> 'deleted' AND coalesce(user_name_norm, email_norm) IS NOT NULL
      GROUP BY 1, 2 HAVING count(*) > 1
    ) d JOIN users u ON u.tenant_id = d.tenant_id AND u.status <> 'deleted'
      AND coalesce(u.user_name_norm, u.email_norm) = d.login AND u.rowid > d.first);
  CREATE UNIQUE INDEX users_login ON users (tenant_id, coalesce(user_name_norm, email_norm), login_dup)
    WHERE status <> 'deleted' AND coalesce(user_name_norm, email_norm) IS NOT NULL;
  -- SQLite checks a table's unique indexes newest first, and names only the first one violated:
  -- the per-field indexes are made again after this one, so a repeated email, userName or
  -- externalId is still named as that field, and the login index speaks only for the cross case.
  DROP INDEX users_external_id;
  DROP INDEX users_email;
  DROP INDEX users_user_name;
  CREATE UNIQUE INDEX users_external_id ON users (tenant_id, external_id)
    WHERE status <> 'deleted' AND external_id IS NOT NULL;
  CREATE UNIQUE INDEX users_email ON users (tenant_id, email_norm)
    WHERE status <> 'deleted' AND email_norm IS NOT NULL;
  CREATE UNIQUE INDEX users_user_name ON users (tenant_id, user_name_norm)
    WHERE status <> 'deleted' AND user_name_norm IS NOT NULL;
  `,
  `
  -- Webhook endpoints and their deliveries (docs/events.md, "Webhooks"). \`cursor\` is the last
  -- event sequence the fan-out looked at for the endpoint; a delivery is one (event, endpoint),
  -- due at next_attempt_at (ms), claimed by the process in lease_owner until lease_until.
  CREATE TABLE webhooks (
    id TEXT PRIMARY KEY,
    tenant_id INTEGER NOT NULL,
    branch_id INTEGER NOT NULL,
    url TEXT NOT NULL,
    types TEXT NOT NULL,
    description TEXT NOT NULL,
    enabled INTEGER NOT NULL,
    disabled_reason TEXT,
    secret TEXT NOT NULL,
    previous_secret TEXT,
    previous_expires_at INTEGER,
    cursor INTEGER NOT NULL DEFAULT 0,
    failing_since INTEGER,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  ) STRICT;
  CREATE INDEX webhooks_by_branch ON webhooks (branch_id, created_at);
  CREATE TABLE webhook_deliveries (
    id TEXT PRIMARY KEY,
    webhook_id TEXT NOT NULL,
    event_id TEXT NOT NULL,
    type TEXT NOT NULL,
    body TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    last_attempt_at INTEGER,
    last_status INTEGER,
    last_error TEXT,
    last_duration_ms INTEGER,
    next_attempt_at INTEGER,
    lease_until INTEGER,
    lease_owner TEXT,
    created_at TEXT NOT NULL,
    UNIQUE (webhook_id, event_id)
  ) STRICT;
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
  -- A claim reads each endpoint's first due deliveries: never a scan of every pending one.
  CREATE INDEX webhook_deliveries_due_by_webhook ON webhook_deliveries (webhook_id, next_attempt_at)
    WHERE status = 'pending';
  CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, id);
  `,
];
