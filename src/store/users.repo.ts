/** Every SQL statement on users. Rows in, `UserRecord`s out; rules live in the service. */
import type {
  Avatar,
  ListableStatus,
  ProfileField,
  Role,
  SortKey,
  UserRecord,
  UserStatus,
} from '../contract/user.js';
import type { Db } from './db.js';
import { rethrowUnique } from './errors.js';
import { OBJECT_ID } from './ids.js';
import type { OutboxMessage, outboxRepo } from './outbox.repo.js';

/** The columns a write may set, by name; the service decides the values. */
export interface UserColumns {
  status: UserStatus;
  role: Role | null;
  external_id: string | null;
  email: string | null;
  email_norm: string | null;
  user_name: string | null;
  user_name_norm: string | null;
  secret_hash: string | null;
  recovery_hash: string | null;
  recovery_expires: number | null;
  locale: string | null;
  gender: string | null;
  first_name: string | null;
  last_name: string | null;
  public_email: string | null;
  phone: string | null;
  position: string | null;
  department: string | null;
  location: string | null;
  avatar: string | null;
  custom: string;
  updated_at: string;
  activated_at: string | null;
}

export interface UserRow extends UserColumns {
  rowid: number;
  id: string;
  tenant_id: number;
  branch_id: number;
  created_at: string;
}

export const PROFILE_COLUMNS: Record<ProfileField, keyof UserColumns> = {
  firstName: 'first_name',
  lastName: 'last_name',
  publicEmailAddress: 'public_email',
  phoneNumber: 'phone',
  position: 'position',
  department: 'department',
  location: 'location',
};

const SORT_COLUMNS: Record<SortKey, string> = {
  firstName: 'first_name COLLATE NOCASE',
  lastName: 'last_name COLLATE NOCASE',
  createdAt: 'created_at',
  email: 'email_norm',
  externalId: 'external_id',
  status: 'status',
};

export interface ListFilter {
  branchId: number;
  statuses: ListableStatus[];
  query?: string;
  sort: { key: SortKey; dir: 'ASC' | 'DESC' }[];
  limit: number;
  offset: number;
}

export function toRecord(r: UserRow): UserRecord {
  const profile: UserRecord['profile'] = {};
  for (const [field, column] of Object.entries(PROFILE_COLUMNS)) {
    profile[field as ProfileField] = r[column] as string | null;
  }
  return {
    id: r.id,
    status: r.status,
    role: r.role,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    activatedAt: r.activated_at,
    externalId: r.external_id,
    email: r.email,
    userName: r.user_name,
    locale: r.locale,
    gender: r.gender,
    profile,
    avatar: r.avatar === null ? null : (JSON.parse(r.avatar) as Avatar),
    custom: JSON.parse(r.custom) as Record<string, string>,
  };
}

/**
 * A free-text query as an FTS5 expression: every word a quoted prefix term, all required.
 * Quoting makes FTS syntax in user input (`AND`, `*`, `"`, `NEAR(`) plain text.
 */
export function ftsExpression(query: string): string | null {
  const words = query.match(/[\p{L}\p{N}]+/gu);
  if (!words) return null;
  return words
    .slice(0, 16)
    .map((w) => `"${w}"*`)
    .join(' ');
}

export function usersRepo(db: Db, outbox: ReturnType<typeof outboxRepo>) {
  const byId = db.prepare<[number, string], UserRow>(
    "SELECT * FROM users WHERE branch_id = ? AND id = ? AND status <> 'deleted'",
  );
  const byExternalId = db.prepare<[number, string], UserRow>(
    "SELECT * FROM users WHERE branch_id = ? AND external_id = ? AND status <> 'deleted'",
  );
  const byRowid = db.prepare<[number], UserRow>('SELECT * FROM users WHERE rowid = ?');
  const statements = new Map<string, ReturnType<Db['prepare']>>();
  const cached = (sql: string) => {
    let stmt = statements.get(sql);
    if (!stmt) {
      stmt = db.prepare(sql);
      statements.set(sql, stmt);
    }
    return stmt;
  };

  return {
    /** A live user of the branch by id, else by externalId. */
    find(branchId: number, key: string): UserRow | undefined {
      // Only an objectId-shaped key can be an id; an externalId may look like one too.
      return (
        (OBJECT_ID.test(key) ? byId.get(branchId, key) : undefined) ??
        byExternalId.get(branchId, key)
      );
    },
    /**
     * Inserts a user and, in the same transaction, the invitation announcing them: a crash
     * leaves both or neither, so a committed user is always invited.
     */
    insert(row: Omit<UserRow, 'rowid'>, invitation?: OutboxMessage): UserRow {
      const cols = Object.keys(row);
      const sql = `INSERT INTO users (${cols.join(', ')}) VALUES (${cols.map((c) => `@${c}`).join(', ')})`;
      try {
        return db.transaction(() => {
          const rowid = Number(cached(sql).run(row).lastInsertRowid);
          if (invitation) outbox.enqueue(invitation);
          return { ...row, rowid };
        })();
      } catch (err) {
        rethrowUnique(err);
      }
    },
    update(rowid: number, changes: Partial<UserColumns>): UserRow {
      const cols = Object.keys(changes).sort();
      if (cols.length > 0) {
        const sql = `UPDATE users SET ${cols.map((c) => `${c} = @${c}`).join(', ')} WHERE rowid = @rowid`;
        try {
          cached(sql).run({ ...changes, rowid });
        } catch (err) {
          rethrowUnique(err);
        }
      }
      return byRowid.get(rowid)!;
    },
    list(f: ListFilter): { total: number; rows: UserRow[] } {
      const match = f.query === undefined ? undefined : ftsExpression(f.query);
      if (match === null) return { total: 0, rows: [] };
      const where = [
        'branch_id = @branchId',
        `status IN (${f.statuses.map((_, i) => `@s${i}`).join(', ')})`,
        ...(match ? ['rowid IN (SELECT rowid FROM users_fts WHERE users_fts MATCH @match)'] : []),
      ].join(' AND ');
      // status before rowid: a harmless tie-break that lets users_by_name order a page alone.
      const order = [
        ...f.sort.map((s) => `${SORT_COLUMNS[s.key]} ${s.dir}`),
        'status',
        'rowid',
      ].join(', ');
      const params: Record<string, unknown> = { branchId: f.branchId, match };
      f.statuses.forEach((s, i) => {
        params[`s${i}`] = s;
      });
      if (!match) delete params.match;
      const { total } = cached(`SELECT count(*) AS total FROM users WHERE ${where}`).get(
        params,
      ) as {
        total: number;
      };
      // Deferred join: pick the page's rowids (index-only where an index fits), then read rows.
      const page = `SELECT rowid FROM users WHERE ${where} ORDER BY ${order} LIMIT @limit OFFSET @offset`;
      const rows = cached(`SELECT * FROM users WHERE rowid IN (${page}) ORDER BY ${order}`).all({
        ...params,
        limit: f.limit,
        offset: f.offset,
      }) as UserRow[];
      return { total, rows };
    },
  };
}
