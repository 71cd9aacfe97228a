/**
 * The PostgreSQL schema, as forward-only migrations recorded in `schema_migrations`; never edit
 * a released one, append a new one. It mirrors the SQLite schema (../sqlite/migrations.ts) with
 * PostgreSQL's means, so both backends answer the same (SCALE.md has the table):
 * - SQLite's `COLLATE NOCASE` order is stored lower-cased sort keys (ASCII only, as NOCASE)
 *   compared bytewise (`COLLATE "C"`, SQLite's own order for other text), with NULLs first
 *   on ASC as SQLite sorts them;
 * - FTS5's `unicode61 remove_diacritics 2` prefix search is a `tsvector` of the same fields,
 *   unaccented and cut at every run of non-alphanumerics, kept by a trigger;
 * - the partial unique indexes are the same, and named so a violation names its field.
 */
import { REFOLDED, type RefoldRow, refolds } from '../common/refold.js';
import type { Client } from './db.js';

/** Upper to lower case for ASCII letters only, as SQLite's NOCASE folds. */
export const NOCASE = (column: string) =>
  `translate(${column}, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')`;

/** The text FTS5 would index, as one normalised string (see `search_text`). */
export const SEARCH_FIELDS = [
  'first_name',
  'last_name',
  'email',
  'user_name',
  'position',
  'department',
  'location',
  'phone',
] as const;

/** A migration is SQL, or a step over the migrating connection (in the migration's transaction). */
export type Migration = string | ((client: Client) => Promise<void>);

/** Users' email_norm and user_name_norm in NFKC (common/refold.ts). */
async function refoldIdentities(client: Client): Promise<void> {
  for (const { field, column, norm } of REFOLDED) {
    const { rows } = await client.query<RefoldRow>(
      `SELECT rowid::int AS rowid, tenant_id::int AS tenant_id, ${column} AS value, ${norm} AS norm
       FROM users WHERE status <> 'deleted' AND ${column} ~ '[^ -~]'`,
    );
    for (const r of refolds(field, rows)) {
      await client.query(
        `UPDATE users SET ${norm} = $1 WHERE rowid = $2 AND NOT EXISTS (
           SELECT 1 FROM users o WHERE o.tenant_id = $3 AND o.${norm} = $1
             AND o.status <> 'deleted' AND o.rowid <> $2)`,
        [r.next, r.rowid, r.tenant_id],
      );
    }
  }
}

export const MIGRATIONS: Migration[] = [
  `
  CREATE EXTENSION IF NOT EXISTS unaccent;

  -- unaccent() is only STABLE (its dictionary could change), so the search vector is kept by a
  -- trigger rather than a generated column. Lower-case, unaccent, then every run of
  -- non-alphanumerics is a word break: 'zimmer.5@example.com' gives zimmer, 5, example, com.
  CREATE FUNCTION roster_search_text(value text) RETURNS text
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$ SELECT regexp_replace(lower(unaccent(coalesce(value, ''))), '[^[:alnum:]]+', ' ', 'g') $$;

  CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL);

  CREATE TABLE tenants (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    host text NOT NULL,
    created_at text NOT NULL,
    public_url text,
    quota_bytes bigint
  );
  CREATE UNIQUE INDEX tenants_host ON tenants (lower(host));

  CREATE TABLE branches (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant_id bigint NOT NULL REFERENCES tenants(id),
    name text NOT NULL,
    created_at text NOT NULL,
    CONSTRAINT branches_name UNIQUE (tenant_id, name)
  );

  CREATE TABLE tokens (
    id text PRIMARY KEY,
    branch_id bigint NOT NULL REFERENCES branches(id),
    name text NOT NULL,
    scopes text NOT NULL,
    secret_hash bytea NOT NULL,
    created_at text NOT NULL,
    revoked_at text
  );

  CREATE TABLE users (
    rowid bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id text NOT NULL UNIQUE,
    tenant_id bigint NOT NULL REFERENCES tenants(id),
    branch_id bigint NOT NULL REFERENCES branches(id),
    status text COLLATE "C" NOT NULL,
    role text,
    external_id text COLLATE "C",
    email text,
    email_norm text COLLATE "C",
    user_name text,
    user_name_norm text,
    secret_hash text,
    recovery_hash text,
    recovery_expires bigint,
    locale text,
    gender text,
    first_name text,
    last_name text,
    public_email text,
    phone text,
    position text,
    department text,
    location text,
    avatar text,
    custom text NOT NULL DEFAULT '{}',
    created_at text COLLATE "C" NOT NULL,
    updated_at text NOT NULL,
    activated_at text,
    first_name_key text COLLATE "C" GENERATED ALWAYS AS (${NOCASE('first_name')}) STORED,
    last_name_key text COLLATE "C" GENERATED ALWAYS AS (${NOCASE('last_name')}) STORED,
    search tsvector NOT NULL DEFAULT ''::tsvector
  );

  -- Unique among the tenant's users that are not deleted, so a removed user's keys can be reused.
  CREATE UNIQUE INDEX users_external_id ON users (tenant_id, external_id)
    WHERE status <> 'deleted' AND external_id IS NOT NULL;
  CREATE UNIQUE INDEX users_email ON users (tenant_id, email_norm)
    WHERE status <> 'deleted' AND email_norm IS NOT NULL;
  CREATE UNIQUE INDEX users_user_name ON users (tenant_id, user_name_norm)
    WHERE status <> 'deleted' AND user_name_norm IS NOT NULL;

  -- The default order (last name, first name) with status and rowid: a page is found from the
  -- index alone, then its rows read (deferred join).
  CREATE INDEX users_by_name ON users
    (branch_id, last_name_key NULLS FIRST, first_name_key NULLS FIRST, status, rowid);
  CREATE INDEX users_by_status ON users (branch_id, status);
  CREATE INDEX users_by_external_id ON users (branch_id, external_id);
  CREATE INDEX users_search ON users USING gin (search);

  CREATE FUNCTION roster_users_search() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    NEW.search := to_tsvector('simple', roster_search_text(concat_ws(' ',
      NEW.${SEARCH_FIELDS.join(', NEW.')})));
    RETURN NEW;
  END $$;
  CREATE TRIGGER users_search BEFORE INSERT OR UPDATE OF ${SEARCH_FIELDS.join(', ')} ON users
    FOR EACH ROW EXECUTE FUNCTION roster_users_search();

  CREATE TABLE media (
    rowid bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id text COLLATE "C" NOT NULL UNIQUE,
    tenant_id bigint NOT NULL REFERENCES tenants(id),
    branch_id bigint NOT NULL REFERENCES branches(id),
    owner_id text NOT NULL,
    file_name text NOT NULL,
    blob_key text NOT NULL,
    type text NOT NULL,
    format text NOT NULL,
    mime_type text NOT NULL,
    bytes bigint NOT NULL,
    width integer,
    height integer,
    duration double precision,
    preview_key text,
    preview_format text,
    preview_mime_type text,
    preview_bytes bigint,
    preview_width integer,
    preview_height integer,
    created_at text NOT NULL
  );
  CREATE INDEX media_by_branch ON media (branch_id, id);
  CREATE INDEX media_by_tenant ON media (tenant_id);

  -- Invitations, written in the same transaction as their user and delivered from here by
  -- whichever replica claims them (at least once; message_id lets a receiver drop a duplicate).
  CREATE TABLE outbox (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    message_id text NOT NULL UNIQUE,
    recipient text NOT NULL,
    file_name text NOT NULL,
    message text NOT NULL,
    created_at text NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    next_attempt_at bigint NOT NULL,
    last_error text
  );
  CREATE INDEX outbox_due ON outbox (next_attempt_at, id);

  -- Rate-limit buckets shared by every replica. UNLOGGED: not worth a WAL write per request,
  -- and a crash that empties them only forgives some requests.
  CREATE UNLOGGED TABLE rate_buckets (
    key text PRIMARY KEY,
    tokens double precision NOT NULL,
    at bigint NOT NULL,
    allowed boolean NOT NULL
  );
  `,
  `
  -- One number that changes in the same transaction as any change to tenants, branches or
  -- tokens, on every replica's view at once: a replica may keep resolved credentials while it
  -- reads the same number (one tiny row per request instead of the token, branch and tenant).
  CREATE TABLE credentials_epoch (value bigint NOT NULL);
  INSERT INTO credentials_epoch (value) VALUES (0);
  CREATE FUNCTION roster_credentials_changed() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    UPDATE credentials_epoch SET value = value + 1;
    RETURN NULL;
  END $$;
  CREATE TRIGGER tenants_epoch AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON tenants
    FOR EACH STATEMENT EXECUTE FUNCTION roster_credentials_changed();
  CREATE TRIGGER branches_epoch AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON branches
    FOR EACH STATEMENT EXECUTE FUNCTION roster_credentials_changed();
  CREATE TRIGGER tokens_epoch AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON tokens
    FOR EACH STATEMENT EXECUTE FUNCTION roster_credentials_changed();
  `,
  `
  -- A counter of each user's writes, for ETags (SCIM and REST If-Match): a timestamp could
  -- repeat within its precision, a counter cannot. Existing users start at 1. A constant
  -- default is stored in the catalog, so this does not rewrite the table.
  ALTER TABLE users ADD COLUMN version integer NOT NULL DEFAULT 1;
  `,
  `
  -- Whether users SCIM creates get an invitation mail (an identity provider usually signs
  -- them in itself): off unless the tenant says so.
  ALTER TABLE tenants ADD COLUMN scim_invitations boolean NOT NULL DEFAULT false;
  `,
  `
  -- An index per sort key that leads an order (names had one), in the order's own NULL
  -- placement: a first page, and each range a cursor page reads (store/common/keyset.ts), is
  -- then a seek, not a sort of the branch. Status and rowid in each, so a status filter and the
  -- tie-breaks are answered from the index (index-only with the visibility map).
  CREATE INDEX users_by_first_name ON users
    (branch_id, first_name_key NULLS FIRST, last_name_key NULLS FIRST, status, rowid);
  CREATE INDEX users_by_created ON users (branch_id, created_at, status, rowid);
  CREATE INDEX users_by_email ON users (branch_id, email_norm NULLS FIRST, status, rowid);
  CREATE INDEX users_by_external_id_order ON users
    (branch_id, external_id NULLS FIRST, status, rowid);
  `,
  `
  -- Each branch's users by status, kept by a trigger in the transaction of every write to users
  -- (so by every writer, the seed's included): a list's exact \`total\` without a filter other
  -- than status is then a sum of a few rows. At 1,000,000 users count(*) was most of a first
  -- page's time (bench/README.md, "Figures from src/ comments"). Striped by the writing
  -- connection (slot): concurrent writes to one branch and status update different rows, so they
  -- do not wait on each other's commits; a reader sums the slots.
  LOCK TABLE users IN SHARE ROW EXCLUSIVE MODE;
  CREATE TABLE user_counts (
    branch_id bigint NOT NULL,
    status text COLLATE "C" NOT NULL,
    slot integer NOT NULL,
    n bigint NOT NULL,
    PRIMARY KEY (branch_id, status, slot)
  );
  INSERT INTO user_counts (branch_id, status, slot, n)
    SELECT branch_id, status, 0, count(*) FROM users GROUP BY branch_id, status;
  CREATE FUNCTION roster_count_user(b bigint, s text, d integer) RETURNS void LANGUAGE sql AS $$
    INSERT INTO user_counts AS c (branch_id, status, slot, n)
      VALUES (b, s, pg_backend_pid() % 16, d)
      ON CONFLICT (branch_id, status, slot) DO UPDATE SET n = c.n + excluded.n
  $$;
  -- A status change updates two rows, the lesser (branch, status) first in every transaction,
  -- so two opposite changes in one slot cannot deadlock.
  CREATE FUNCTION roster_user_counts() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      PERFORM roster_count_user(NEW.branch_id, NEW.status, 1);
    ELSIF TG_OP = 'DELETE' THEN
      PERFORM roster_count_user(OLD.branch_id, OLD.status, -1);
    ELSIF (OLD.branch_id, OLD.status) < (NEW.branch_id, NEW.status) THEN
      PERFORM roster_count_user(OLD.branch_id, OLD.status, -1);
      PERFORM roster_count_user(NEW.branch_id, NEW.status, 1);
    ELSIF (OLD.branch_id, OLD.status) > (NEW.branch_id, NEW.status) THEN
      PERFORM roster_count_user(NEW.branch_id, NEW.status, 1);
      PERFORM roster_count_user(OLD.branch_id, OLD.status, -1);
    END IF;
    RETURN NULL;
  END $$;
  CREATE TRIGGER users_counts AFTER INSERT OR DELETE OR UPDATE OF branch_id, status ON users
    FOR EACH ROW EXECUTE FUNCTION roster_user_counts();
  CREATE FUNCTION roster_user_counts_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    DELETE FROM user_counts;
    RETURN NULL;
  END $$;
  CREATE TRIGGER users_counts_truncate AFTER TRUNCATE ON users
    FOR EACH STATEMENT EXECUTE FUNCTION roster_user_counts_truncate();
  `,
  `
  -- The event log (docs/events.md): one row per change, written in the change's transaction,
  -- numbered last under the tenant's advisory lock (events.repo.ts) so that sequence order is
  -- commit order. Times as ISO text, compared as text (as SQLite does, and as copy carries them).
  CREATE TABLE events (
    sequence bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    id text COLLATE "C" NOT NULL UNIQUE,
    tenant_id bigint NOT NULL,
    branch_id bigint NOT NULL,
    type text COLLATE "C" NOT NULL,
    occurred_at text COLLATE "C" NOT NULL,
    actor_type text NOT NULL,
    actor_id text,
    actor_name text,
    channel text NOT NULL,
    request_id text NOT NULL,
    run text COLLATE "C",
    target_type text NOT NULL,
    target_id text COLLATE "C" NOT NULL,
    target_external_id text,
    target_email text,
    changes text
  );
  CREATE INDEX events_by_branch ON events (branch_id, sequence);
  CREATE INDEX events_by_target ON events (branch_id, target_id, sequence);
  CREATE INDEX events_by_type ON events (branch_id, type, sequence);
  CREATE INDEX events_by_run ON events (branch_id, run, sequence) WHERE run IS NOT NULL;
  CREATE INDEX events_by_time ON events (occurred_at);
  -- A token made with every scope there was gets the new ones (events:read, webhooks:write):
  -- "every scope" stays every scope, so the admin token can read events.
  UPDATE tokens SET scopes = scopes || ',events:read,webhooks:write'
    WHERE string_to_array(scopes, ',') @> ARRAY['users:read', 'users:write', 'media:read', 'media:write'];
  `,
  `
  -- Where each token works (contract/scopes.ts CHANNELS): every new token names its own. Tokens
  -- made before had no such mark and worked on /api and /scim alike; they keep doing so (a SCIM
  -- integration that stopped provisioning would fail unseen), and \`tokens list\` shows it.
  ALTER TABLE tokens ADD COLUMN channels text NOT NULL DEFAULT 'api,scim';
  `,
  // email and userName compare in NFKC (contract/identity.ts): existing keys refolded.
  refoldIdentities,
  // A userName derived from the email counts for uniqueness (contract/identity.ts loginName).
  `
  -- The login name is the userName, else the email (what SCIM serves as userName): unique among
  -- the tenant's live users, so no userName can be another user's email-derived one, even
  -- between two concurrent writes. Pairs made before this rule are both kept: the newer is
  -- marked in login_dup (its rowid) and so sits beside the older in the index; new rows get 0.
  -- user_name_norm's collation is the default, email_norm's "C": the index names one.
  ALTER TABLE users ADD COLUMN login_dup bigint NOT NULL DEFAULT 0;
  -- Grouped, not a correlated EXISTS: that compared every user with every other (23 s at
  -- 20,000 users here); this sorts once (0.2 s at 200,000) and joins only the repeated logins.
  UPDATE users SET login_dup = rowid WHERE rowid IN (
    SELECT u.rowid FROM (
      SELECT tenant_id, coalesce(user_name_norm, email_norm) AS login, min(rowid) AS first
      FROM users WHERE status <> 'deleted' AND coalesce(user_name_norm, email_norm) IS NOT NULL
      GROUP BY 1, 2 HAVING count(*) > 1
    ) d JOIN users u ON u.tenant_id = d.tenant_id AND u.status <> 'deleted'
      AND coalesce(u.user_name_norm, u.email_norm) = d.login AND u.rowid > d.first);
  CREATE UNIQUE INDEX users_login ON users (tenant_id, coalesce(user_name_norm COLLATE "C", email_norm), login_dup)
    WHERE status <> 'deleted' AND coalesce(user_name_norm, email_norm) IS NOT NULL;
  -- PostgreSQL checks unique indexes in the order they were made: this one last, so a repeated
  -- email, userName or externalId is still named as that field (SQLite's needs more: its
  -- migration makes those again after this one).
  `,
  `
  -- Webhook endpoints and their deliveries (docs/events.md, "Webhooks"). \`cursor\` is the last
  -- event sequence the fan-out looked at for the endpoint; a delivery is one (event, endpoint),
  -- due at next_attempt_at (ms), claimed until lease_until (FOR UPDATE SKIP LOCKED).
  CREATE TABLE webhooks (
    id text COLLATE "C" PRIMARY KEY,
    tenant_id bigint NOT NULL,
    branch_id bigint NOT NULL,
    url text NOT NULL,
    types text NOT NULL,
    description text NOT NULL,
    enabled boolean NOT NULL,
    disabled_reason text,
    secret text NOT NULL,
    previous_secret text,
    previous_expires_at bigint,
    cursor bigint NOT NULL DEFAULT 0,
    failing_since bigint,
    created_at text COLLATE "C" NOT NULL,
    updated_at text COLLATE "C" NOT NULL
  );
  CREATE INDEX webhooks_by_branch ON webhooks (branch_id, created_at);
  CREATE TABLE webhook_deliveries (
    id text COLLATE "C" PRIMARY KEY,
    webhook_id text COLLATE "C" NOT NULL,
    event_id text COLLATE "C" NOT NULL,
    type text NOT NULL,
    body text NOT NULL,
    status text NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    last_attempt_at bigint,
    last_status integer,
    last_error text,
    last_duration_ms bigint,
    next_attempt_at bigint,
    lease_until bigint,
    lease_owner text,
    created_at text COLLATE "C" NOT NULL,
    UNIQUE (webhook_id, event_id)
  );
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
  -- A claim reads each endpoint's first due deliveries: never a scan of every pending one.
  CREATE INDEX webhook_deliveries_due_by_webhook ON webhook_deliveries (webhook_id, next_attempt_at)
    WHERE status = 'pending';
  CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, id);
  `,
];
