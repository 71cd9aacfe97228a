/**
 * A backend's schema as text lines, the same whatever spelling made it: for comparing a schema
 * built from one list of migrations with one built from another (test/store/migrations-*).
 */
import type Database from 'better-sqlite3';
import type pg from 'pg';

/** SQL text as a reader compares it: no comments, one space between words, none inside (). */
export const normalizeSql = (text: string) =>
  text
    .replace(/--[^\n]*/g, ' ')
    .replace(/\s+/g, ' ')
    .replace(/\(\s+/g, '(')
    .replace(/\s+\)/g, ')')
    .replace(/\s+,/g, ',')
    .trim();

/** Every object of sqlite_master with its SQL, and the user_version. */
export function sqliteSchema(db: Database.Database): string[] {
  const rows = db
    .prepare<[], { type: string; name: string; tbl_name: string; sql: string | null }>(
      'SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name',
    )
    .all();
  const version = db.pragma('user_version', { simple: true });
  return [
    `user_version ${version}`,
    ...rows.map((r) => `${r.type} ${r.name} on ${r.tbl_name}: ${normalizeSql(r.sql ?? '')}`),
  ];
}

const PG_QUERIES: [string, string][] = [
  ['extension', 'SELECT extname AS a FROM pg_extension ORDER BY 1'],
  [
    'relation',
    `SELECT relname AS a, relkind AS b, relpersistence AS c FROM pg_class
     WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'S', 'v', 'm') ORDER BY 1`,
  ],
  [
    'column',
    `SELECT table_name AS a, column_name AS b, concat_ws(' | ', data_type, is_nullable,
       column_default, collation_name, is_identity, identity_generation, is_generated,
       generation_expression) AS c
     FROM information_schema.columns WHERE table_schema = 'public'
     ORDER BY table_name, ordinal_position`,
  ],
  [
    'index',
    `SELECT indexname AS a, indexdef AS b FROM pg_indexes WHERE schemaname = 'public'
     ORDER BY 1`,
  ],
  [
    'constraint',
    `SELECT conrelid::regclass::text AS a, conname AS b, pg_get_constraintdef(oid) AS c
     FROM pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY 1, 2`,
  ],
  [
    'trigger',
    `SELECT tgname AS a, pg_get_triggerdef(oid) AS b FROM pg_trigger
     WHERE NOT tgisinternal ORDER BY 1`,
  ],
  [
    'function',
    `SELECT proname AS a, pg_get_functiondef(oid) AS b FROM pg_proc
     WHERE pronamespace = 'public'::regnamespace ORDER BY 1, 2`,
  ],
];

/** The catalog's own account of the public schema: what pg_dump would compare. */
export async function postgresSchema(client: Pick<pg.ClientBase, 'query'>): Promise<string[]> {
  const lines: string[] = [];
  for (const [kind, text] of PG_QUERIES) {
    const { rows } = await client.query<{ a: string; b?: string; c?: string }>(text);
    for (const r of rows) {
      const parts = [r.a, r.b, r.c].filter((p) => p !== undefined && p !== null);
      lines.push(`${kind} ${parts.map((p) => normalizeSql(String(p))).join(': ')}`);
    }
  }
  return lines;
}
