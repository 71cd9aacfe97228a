/**
 * The SQLite side of the migrations where the dialects really differ (migrations/list.ts says
 * where each is used): FTS5 search and its triggers, NOCASE orders, the counters' triggers,
 * and SQLite's index order rule. Never edit a released one; append a new one.
 */

import type { MigrationProgress } from '../common/migration.js';
import { REFOLDED, type RefoldRow, refolds } from '../common/refold.js';
import { SEARCH_FIELDS, SPELLED_OUT } from '../common/search.js';
import type { Db } from './db.js';
import { FTS_TOKENIZER, searchEntry } from './fts-words.js';

/** A column as its full-text entry gets it: as stored (migrations 6, 11), or spelled out (16). */
type Entry = (column: string) => string;
const asStored: Entry = (column) => column;
/** SPELLED_OUT's letters spelled out, as search.ts spellOut does to a query. */
const spelledOut: Entry = (column) =>
  SPELLED_OUT.reduce(
    (sql, [letter, spelled]) => `replace(${sql}, '${letter}', '${spelled}')`,
    column,
  );

/**
 * The users' full-text index with its triggers, (re)built from the users table: migration 6
 * made it, 11 rebuilt it with a one-letter prefix index (FTS5 has no ALTER for its options), 16
 * with the letters unicode61 does not fold spelled out. Each user's branch and status are one
 * more token (`scope`, see migration 6).
 */
export const usersFts = (prefix: string, entry: Entry = asStored) => {
  const values = (row: string) =>
    `${SEARCH_FIELDS.map((c) => entry(`${row}${c}`)).join(', ')}, 'b' || ${row}branch_id || ${row}status`;
  const columns = `rowid, ${SEARCH_FIELDS.join(', ')}, scope`;
  return `  DROP TRIGGER users_fts_insert;
  DROP TRIGGER users_fts_delete;
  DROP TRIGGER users_fts_update;
  DROP TABLE users_fts;
  CREATE VIRTUAL TABLE users_fts USING fts5 (
    ${SEARCH_FIELDS.join(', ')}, scope,
    content = '', tokenize = '${FTS_TOKENIZER}', prefix = '${prefix}'
  );
  INSERT INTO users_fts (${columns})
    SELECT rowid, ${values('')} FROM users;
  CREATE TRIGGER users_fts_insert AFTER INSERT ON users BEGIN
    INSERT INTO users_fts (${columns})
    VALUES (new.rowid, ${values('new.')});
  END;
  CREATE TRIGGER users_fts_delete AFTER DELETE ON users BEGIN
    INSERT INTO users_fts (users_fts, ${columns})
    VALUES ('delete', old.rowid, ${values('old.')});
  END;
  CREATE TRIGGER users_fts_update AFTER UPDATE OF ${SEARCH_FIELDS.join(', ')}, branch_id, status ON users BEGIN
    INSERT INTO users_fts (users_fts, ${columns})
    VALUES ('delete', old.rowid, ${values('old.')});
    INSERT INTO users_fts (${columns})
    VALUES (new.rowid, ${values('new.')});
  END;`;
};

/**
 * SQLite's version 16: search folds ß, ø, đ, ł, æ and œ as PostgreSQL's unaccent does (ss, o,
 * d, l, ae, oe; docs/decisions.md, "Search"): unicode61 keeps them, so "Weiss" missed "Weiß"
 * here only (test/store/search-semantics.test.ts). The entries are rebuilt with them spelled
 * out, and the query is spelled out the same way (store/common/search.ts spellOut).
 */
export const USERS_FTS_SPELLED_OUT = usersFts('1 2 3', spelledOut);

/** SQLite's version 1: tenants, branches, tokens and users, with their search. */
export const BASE = `
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
  `;

/** SQLite's version 3: the default order with status in its index. */
export const USERS_BY_NAME_STATUS = `
  -- The default list order with status in the index: a page is then found from the index
  -- alone (deferred join), so deep offsets no longer read every skipped row.
  DROP INDEX users_by_name;
  CREATE INDEX users_by_name
    ON users (branch_id, last_name COLLATE NOCASE, first_name COLLATE NOCASE, status);
  `;

/** The outbox's due order (PostgreSQL's has the id too: its claims take the oldest first). */
export const OUTBOX_DUE = `
  CREATE INDEX outbox_due ON outbox (next_attempt_at);
  `;

/** SQLite's version 6: search counts from the full-text index alone. */
export const USERS_FTS_SCOPE = `
  -- Search counts from the full-text index alone. Each user's branch and status are one more
  -- token of its entry (\`scope\`: 'b' || branch_id || status, as 'b1activated'), so "which users
  -- of this branch and status match" is an intersection inside FTS5 instead of a probe of the
  -- users table per match: counting query=M at 100,000 users 11.8 -> 2.4 ms. Contentless
  -- (nothing reads values back from it); a change deletes the old entry with its old values.
${usersFts('2 3')}
  `;

/** SQLite's version 9: an index per sort key that leads an order. */
export const SORT_INDEXES = `
  -- An index per sort key that leads an order (names had one): a first page, and each range a
  -- cursor page reads (store/common/keyset.ts), is then a seek, not a sort of the branch. At
  -- 1,000,000 users a createdAt or email page was a scan and sort of every user. Status in
  -- each, so a status filter is answered from the index. externalId and status have theirs.
  CREATE INDEX users_by_first_name
    ON users (branch_id, first_name COLLATE NOCASE, last_name COLLATE NOCASE, status);
  CREATE INDEX users_by_created ON users (branch_id, created_at, status);
  CREATE INDEX users_by_email ON users (branch_id, email_norm, status);
  `;

/** SQLite's version 10: each branch's users by status, kept by triggers. */
export const USER_COUNTS = `
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
  `;

/** SQLite's version 11: a one-letter prefix from the prefix index. */
export const USERS_FTS_ONE_LETTER = `
  -- A one-letter prefix from a prefix index too ('1 2 3'; was '2 3'): below its shortest one,
  -- FTS5 merges the lists of every term the prefix begins before it can give a first match
  -- (bench/README.md, "Figures from src/ comments"). Rebuilt as migration 6 built it (FTS5 has
  -- no ALTER for its options).
${usersFts('1 2 3')}
  `;

/** SQLite's version 12: a token made with every scope there was gets the scopes added then. */
export const EVERY_SCOPE_TOKENS = `
  -- A token made with every scope there was gets the scopes added now (events:read,
  -- webhooks:write): "every scope" stays every scope, so the admin token can read events.
  UPDATE tokens SET scopes = scopes || ',events:read,webhooks:write'
    WHERE ',' || scopes || ',' LIKE '%,users:read,%' AND ',' || scopes || ',' LIKE '%,users:write,%'
      AND ',' || scopes || ',' LIKE '%,media:read,%' AND ',' || scopes || ',' LIKE '%,media:write,%';
  `;

/** SQLite's version 14: users' email_norm and user_name_norm in NFKC (common/refold.ts). */
export function refoldIdentities(db: Db): unknown[] {
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

/**
 * Version 15: the login-name index, and the per-field unique indexes made again after it.
 */
export const USERS_LOGIN = `
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
  `;

/** SQLite's version 18: the users without an email, in each next key's order. */
export const USERS_WITHOUT_EMAIL = `
  -- The users without an email (about 3 %) in the order of each key that can follow email in a
  -- sort, then status (rowid is in every index): a list led by email reads them as a part of
  -- their own (store/common/keyset.ts nullParted). In users_by_email they tie, so a page among
  -- them sorted them all (email_ASC_lastName_ASC's first page 0.2-0.7 s at 1,000,000 users). By
  -- status or email, users_by_email already has them in (status, rowid) order. At 1,000,000
  -- users the four took 0.15-0.48 s each here.
  CREATE INDEX users_without_email_by_name
    ON users (branch_id, last_name COLLATE NOCASE, status) WHERE email_norm IS NULL;
  CREATE INDEX users_without_email_by_first_name
    ON users (branch_id, first_name COLLATE NOCASE, status) WHERE email_norm IS NULL;
  CREATE INDEX users_without_email_by_created
    ON users (branch_id, created_at, status) WHERE email_norm IS NULL;
  CREATE INDEX users_without_email_by_external_id
    ON users (branch_id, external_id, status) WHERE email_norm IS NULL;
  `;

/** SQLite's version 19: a target's events found from a table the pruner tidies in its order. */
export const EVENT_TARGETS = `
  -- events_by_target (branch, target, sequence) is in no order of time: pruning the oldest
  -- events deleted one entry from each of its pages, so a batch of ~260 events wrote ~230 pages
  -- (4 GB to the WAL, then again to the file, for 1M), and the checkpoints of those pages held
  -- up the writes beside it (bench/HISTORY.md, "SQLite's pruning traced"). The same keys as a
  -- table kept by a trigger: pruning leaves a pruned event's entry behind, and the pruner's
  -- sweep (event-targets.ts) deletes those later in the table's own order, a page
  -- written once for every hundred or so entries. A target's page joins each entry to its event,
  -- so one left behind is never listed.
  CREATE TABLE event_targets (
    branch_id INTEGER NOT NULL,
    target_id TEXT NOT NULL,
    sequence INTEGER NOT NULL,
    PRIMARY KEY (branch_id, target_id, sequence)
  ) STRICT, WITHOUT ROWID;
  INSERT INTO event_targets (branch_id, target_id, sequence)
    SELECT branch_id, target_id, sequence FROM events INDEXED BY events_by_target
    ORDER BY branch_id, target_id, sequence;
  DROP INDEX events_by_target;
  -- A key may outlive its event until the sweep, but a sequence is never given twice
  -- (AUTOINCREMENT): a key already there would be a fault worth failing the write for.
  CREATE TRIGGER events_target AFTER INSERT ON events BEGIN
    INSERT INTO event_targets (branch_id, target_id, sequence)
      VALUES (new.branch_id, new.target_id, new.sequence);
  END;
  `;

/** Rows a step over every user reads and writes at a time (migration 20). */
const USERS_BATCH = 10_000;

/**
 * SQLite's version 20: each user's words as the full-text index makes them (fts-words.ts
 * searchEntry), in `users.words`, which the repo writes with every change of a searched field:
 * a search with many matches walks its order's index and checks each row there (users-list.ts
 * wordsWalk). In one transaction, as every migration: at 1M users 14.8 s, with the WAL growing
 * by the pages it rewrites (382 MiB) until the checkpoint after it.
 */
export function usersWords(db: Db, progress?: MigrationProgress, batch = USERS_BATCH): unknown[] {
  const total = db.prepare('SELECT count(*) FROM users').pluck();
  const read = db.prepare<
    [number, number],
    { rowid: number } & Partial<Record<(typeof SEARCH_FIELDS)[number], unknown>>
  >(`SELECT rowid, ${SEARCH_FIELDS.join(', ')} FROM users WHERE rowid > ? ORDER BY rowid LIMIT ?`);
  const write = db.prepare<[string, number]>('UPDATE users SET words = ? WHERE rowid = ?');
  const all = total.get() as number;
  let done = 0;
  for (let after = 0; ; ) {
    const rows = read.all(after, batch);
    if (rows.length === 0) break;
    for (const row of rows) write.run(searchEntry(row), row.rowid);
    after = rows.at(-1)!.rowid;
    done += rows.length;
    if (done % (10 * batch) === 0 || done === all) progress?.(done, all);
  }
  return [total, read, write];
}
