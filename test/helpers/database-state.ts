/**
 * What a migrated test database holds, so one a test has finished with can be put back as the
 * template made it instead of dropped and created again. A test server's start and close took
 * ~0.37 s on a new copy (creating and dropping it, and the first sessions' first reads of every
 * table) and ~0.13 s on one put back, the reset itself ~0.02 s (2026-11-26, quiet machine).
 *
 * A database is put back only when its schema is the template's (`fingerprint`); else it is
 * dropped, so a test that changed the schema leaves nothing behind for the next.
 */
import type pg from 'pg';

export interface DatabaseState {
  /** md5 over the schema: relations, columns, indexes, constraints, triggers, functions, settings. */
  fingerprint: string;
  /** Every table, schema-qualified and quoted, each before those its foreign keys point at. */
  tables: string[];
  /** The rows the migrations left (schema_migrations, the credentials epoch), per table. */
  rows: { table: string; columns: string[]; json: string }[];
  /** Each sequence's position. */
  sequences: { name: string; lastValue: string; isCalled: boolean }[];
}

const USER_SCHEMAS = `n.nspname NOT IN ('pg_catalog', 'information_schema')
  AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp%'`;

const FINGERPRINT = `
SELECT md5(coalesce(string_agg(x, E'\\n' ORDER BY x), '')) AS fingerprint FROM (
  SELECT 'ns ' || n.nspname FROM pg_namespace n WHERE ${USER_SCHEMAS}
  UNION ALL
  SELECT 'rel ' || n.nspname || '.' || c.relname || ' ' || c.relkind::text || ' ' || coalesce(c.relacl::text, '')
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${USER_SCHEMAS}
  UNION ALL
  SELECT 'col ' || n.nspname || '.' || c.relname || '.' || a.attname || ' '
      || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull::text || ' ' || a.attgenerated::text
      || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE ${USER_SCHEMAS} AND a.attnum > 0 AND NOT a.attisdropped
  UNION ALL
  SELECT 'idx ' || pg_get_indexdef(i.indexrelid)
    FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${USER_SCHEMAS}
  UNION ALL
  SELECT 'con ' || co.conname || ' ' || pg_get_constraintdef(co.oid)
    FROM pg_constraint co JOIN pg_namespace n ON n.oid = co.connamespace WHERE ${USER_SCHEMAS}
  UNION ALL
  SELECT 'trg ' || t.tgenabled::text || ' ' || pg_get_triggerdef(t.oid) FROM pg_trigger t WHERE NOT t.tgisinternal
  UNION ALL
  SELECT 'fn ' || p.oid::regprocedure::text || ' ' || md5(pg_get_functiondef(p.oid))
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE ${USER_SCHEMAS} AND p.prokind IN ('f', 'p')
  UNION ALL
  SELECT 'ext ' || e.extname || ' ' || e.extversion FROM pg_extension e
  UNION ALL
  SELECT 'set ' || array_to_string(s.setconfig, ',') FROM pg_db_role_setting s
    JOIN pg_database db ON db.oid = s.setdatabase WHERE db.datname = current_database()
) parts(x)`;

const TABLES = `
SELECT c.oid::regclass::text AS name,
    array(SELECT confrelid::regclass::text FROM pg_constraint
      WHERE conrelid = c.oid AND contype = 'f' AND confrelid <> c.oid) AS parents
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE ${USER_SCHEMAS} AND c.relkind IN ('r', 'p') ORDER BY 1`;

/** Tables ordered so that each comes before every table its foreign keys point at. */
function childrenFirst(tables: { name: string; parents: string[] }[]): string[] {
  const order: string[] = [];
  const placed = new Set<string>();
  const visit = (name: string, path: Set<string>) => {
    if (placed.has(name) || path.has(name)) return;
    path.add(name);
    for (const t of tables) if (t.parents.includes(name)) visit(t.name, path);
    placed.add(name);
    order.push(name);
  };
  for (const t of tables) visit(t.name, new Set());
  return order;
}

const SEQUENCES = `
SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS name
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE ${USER_SCHEMAS} AND c.relkind = 'S' ORDER BY 1`;

/** Columns a row can be written back to (not generated ones). */
const WRITABLE_COLUMNS = `
SELECT quote_ident(a.attname) AS name FROM pg_attribute a
  WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
  ORDER BY a.attnum`;

export async function fingerprint(client: pg.Client): Promise<string> {
  const { rows } = await client.query<{ fingerprint: string }>(FINGERPRINT);
  return rows[0]!.fingerprint;
}

/** Reads the state of the database `client` is connected to (the migrated template). */
export async function captureState(client: pg.Client): Promise<DatabaseState> {
  const tables = childrenFirst(
    (await client.query<{ name: string; parents: string[] }>(TABLES)).rows,
  );
  const rows: DatabaseState['rows'] = [];
  for (const table of tables) {
    const { rows: found } = await client.query<{ json: unknown[] | null }>(
      `SELECT json_agg(t) AS json FROM ${table} t`,
    );
    const json = found[0]?.json;
    if (!json?.length) continue;
    const columns = (await client.query<{ name: string }>(WRITABLE_COLUMNS, [table])).rows.map(
      (r) => r.name,
    );
    rows.push({ table, columns, json: JSON.stringify(json) });
  }
  const sequences: DatabaseState['sequences'] = [];
  for (const { name } of (await client.query<{ name: string }>(SEQUENCES)).rows) {
    const { rows: at } = await client.query<{ last_value: string; is_called: boolean }>(
      `SELECT last_value, is_called FROM ${name}`,
    );
    sequences.push({ name, lastValue: at[0]!.last_value, isCalled: at[0]!.is_called });
  }
  return { fingerprint: await fingerprint(client), tables, rows, sequences };
}

/**
 * Puts the database `client` is connected to back to `state`, or answers false (and changes
 * nothing) when its schema is no longer the template's. Other sessions on it are ended first:
 * the test's store is closed by now, so any left is a leak that must not write into the next test.
 */
export async function restoreState(client: pg.Client, state: DatabaseState): Promise<boolean> {
  await client.query(
    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
  );
  if ((await fingerprint(client)) !== state.fingerprint) return false;
  await client.query('BEGIN');
  try {
    // A session that pg_terminate_backend has not yet ended still holds its locks: wait, briefly.
    await client.query("SET LOCAL lock_timeout = '5s'");
    // DELETE, not TRUNCATE: a handful of rows, where TRUNCATE makes new files for every table
    // and index (~90 ms here against ~20). The triggers that keep counts run and are undone by
    // the next table's DELETE; a second pass finds nothing unless a trigger wrote elsewhere.
    for (let pass = 0; ; pass++) {
      let deleted = 0;
      for (const table of state.tables) {
        deleted += (await client.query(`DELETE FROM ${table}`)).rowCount ?? 0;
      }
      if (deleted === 0) break;
      if (pass === 2) throw new Error('triggers keep writing rows the reset deletes');
    }
    for (const { table, columns, json } of state.rows) {
      const list = columns.join(', ');
      await client.query(
        `INSERT INTO ${table} (${list}) SELECT ${list} FROM json_populate_recordset(NULL::${table}, $1)`,
        [json],
      );
    }
    for (const { name, lastValue, isCalled } of state.sequences) {
      await client.query('SELECT setval($1::regclass, $2, $3)', [name, lastValue, isCalled]);
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  }
  return true;
}
