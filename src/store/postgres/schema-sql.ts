/**
 * The PostgreSQL side of the migrations where the dialects really differ (migrations/list.ts
 * says where each is used). It mirrors SQLite's schema with PostgreSQL's means, so both
 * backends answer the same (SCALE.md has the table):
 * - SQLite's `COLLATE NOCASE` order is stored lower-cased sort keys (ASCII only, as NOCASE)
 *   compared bytewise (`COLLATE "C"`, SQLite's own order for other text), with NULLs first
 *   on ASC as SQLite sorts them;
 * - FTS5's `unicode61 remove_diacritics 2` prefix search is a `tsvector` of the same fields,
 *   unaccented and cut at every run of non-alphanumerics, kept by a trigger;
 * - the partial unique indexes are the same, and named so a violation names its field.
 * Never edit a released one; append a new one.
 */
import { REFOLDED, type RefoldRow, refolds } from '../common/refold.js';
import { SEARCH_FIELDS } from '../common/search.js';
import type { Client } from './db.js';

/** Upper to lower case for ASCII letters only, as SQLite's NOCASE folds. */
export const NOCASE = (column: string) =>
  `translate(${column}, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')`;

/** PostgreSQL's version 9: users' email_norm and user_name_norm in NFKC (common/refold.ts). */
export async function refoldIdentities(client: Client): Promise<void> {
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

/** PostgreSQL's version 1: tenants, branches, tokens and users, with their search (media and outbox: list.ts). */
export const BASE = `
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

  `;

/** The outbox's due order, with the id: a claim takes the oldest first. */
export const OUTBOX_DUE = `
  CREATE INDEX outbox_due ON outbox (next_attempt_at, id);
  `;

/** Rate-limit buckets (SQLite's are in the process: one process serves it). */
export const RATE_BUCKETS = `
  -- Rate-limit buckets shared by every replica. UNLOGGED: not worth a WAL write per request,
  -- and a crash that empties them only forgives some requests.
  CREATE UNLOGGED TABLE rate_buckets (
    key text PRIMARY KEY,
    tokens double precision NOT NULL,
    at bigint NOT NULL,
    allowed boolean NOT NULL
  );
  `;

/** PostgreSQL's version 2: one number that changes with any credential. */
export const CREDENTIALS_EPOCH = `
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
  `;

/** PostgreSQL's version 5: an index per sort key that leads an order. */
export const SORT_INDEXES = `
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
  `;

/** PostgreSQL's version 6: each branch's users by status, kept by a trigger. */
export const USER_COUNTS = `
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
  `;

/** PostgreSQL's version 7: a token made with every scope there was gets the new ones. */
export const EVERY_SCOPE_TOKENS = `
  -- A token made with every scope there was gets the new ones (events:read, webhooks:write):
  -- "every scope" stays every scope, so the admin token can read events.
  UPDATE tokens SET scopes = scopes || ',events:read,webhooks:write'
    WHERE string_to_array(scopes, ',') @> ARRAY['users:read', 'users:write', 'media:read', 'media:write'];
  `;

/** PostgreSQL's version 10: the login-name index. */
export const USERS_LOGIN = `
  -- user_name_norm's collation is the default, email_norm's "C": the index names one.
  CREATE UNIQUE INDEX users_login ON users (tenant_id, coalesce(user_name_norm COLLATE "C", email_norm), login_dup)
    WHERE status <> 'deleted' AND coalesce(user_name_norm, email_norm) IS NOT NULL;
  -- PostgreSQL checks unique indexes in the order they were made: this one last, so a repeated
  -- email, userName or externalId is still named as that field (SQLite's needs more: its
  -- migration makes those again after this one).
  `;

/** PostgreSQL's version 12: the users without an email, in each next key's order. */
export const USERS_WITHOUT_EMAIL = `
  -- The users without an email (about 3 %) in the order of each key that can follow email in a
  -- sort, status and rowid after it: a list led by email reads them as a part of their own
  -- (store/common/keyset.ts nullParted). In users_by_email they tie, so a page among them
  -- sorted them all (email_ASC_lastName_ASC's first page 140-410 ms at 1,000,000 users). By
  -- status or email, users_by_email already has them in (status, rowid) order. Not
  -- CONCURRENTLY (migrations run in a transaction): at 1,000,000 users the four took 0.9 s
  -- here (0.15-0.45 s each), writes to users waiting meanwhile; reads do not wait.
  CREATE INDEX users_without_email_by_name ON users
    (branch_id, last_name_key NULLS FIRST, status, rowid) WHERE email_norm IS NULL;
  CREATE INDEX users_without_email_by_first_name ON users
    (branch_id, first_name_key NULLS FIRST, status, rowid) WHERE email_norm IS NULL;
  CREATE INDEX users_without_email_by_created ON users
    (branch_id, created_at, status, rowid) WHERE email_norm IS NULL;
  CREATE INDEX users_without_email_by_external_id ON users
    (branch_id, external_id NULLS FIRST, status, rowid) WHERE email_norm IS NULL;
  `;

/** PostgreSQL's version 13: the users' counts added by PL/pgSQL (its plans kept per session). */
export const COUNT_USER_PLPGSQL = `
  -- A LANGUAGE sql function that cannot be inlined (an INSERT) is parsed and planned again at
  -- every call: each user insert, delete or status change paid that in its trigger (about 5 %
  -- of the machine's CPU under POSTs; bench/HISTORY.md). PL/pgSQL keeps its statement's plan
  -- for the connection's life. Same name and arguments, so the trigger is unchanged.
  CREATE OR REPLACE FUNCTION roster_count_user(b bigint, s text, d integer) RETURNS void
    LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO user_counts AS c (branch_id, status, slot, n)
      VALUES (b, s, pg_backend_pid() % 16, d)
      ON CONFLICT (branch_id, status, slot) DO UPDATE SET n = c.n + excluded.n;
  END $$;
  `;

/** PostgreSQL's version 14: an event's numbering lock and row in one PL/pgSQL function. */
export const RECORD_EVENT = `
  -- events.repo.ts sends each event in the COMMIT's message, as literals (the simple protocol:
  -- one message, several statements): as an INSERT, PostgreSQL parsed, analysed and planned it
  -- at every write. A call parses to little, and the function's INSERT keeps its plan for the
  -- connection's life. Arguments: the tenant (the lock's key), then the row in the order of
  -- common/event-rows.ts EVENT_COLUMNS (a change of those columns replaces this function in a
  -- migration of its own). The lock is taken before the row's sequence is drawn (events.repo.ts).
  CREATE OR REPLACE FUNCTION roster_record_event(integer, text, bigint, bigint, text, text, text, text,
    text, text, text, text, text, text, text, text, text) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM pg_advisory_xact_lock(1165389428, $1);
    INSERT INTO events (id, tenant_id, branch_id, type, occurred_at, actor_type, actor_id,
        actor_name, channel, request_id, run, target_type, target_id, target_external_id,
        target_email, changes)
      VALUES ($2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17);
  END $$;
  `;
