/**
 * Once per run, on PostgreSQL: a database with Roster's schema already migrated, which every
 * test's fresh database copies (CREATE DATABASE … TEMPLATE) instead of migrating anew. Dropped
 * when the run ends.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { databaseTarget, openStore } from '../src/store/open.js';
import { createDatabase, dropDatabase, reusedDatabases } from './helpers/database.js';
import { captureState, type DatabaseState } from './helpers/database-state.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The migrated template database's name ('' off PostgreSQL). */
    pgTemplate: string;
    /** What the template holds, to put a used database back to it (helpers/database-state.ts). */
    pgTemplateState: DatabaseState | null;
  }
}

export default async function setup(project: TestProject) {
  const admin = process.env.ROSTER_TEST_DATABASE;
  if (!admin) {
    project.provide('pgTemplate', '');
    project.provide('pgTemplateState', null);
    return;
  }
  const db = await createDatabase(admin, 'template0', 'roster_template_');
  const dir = mkdtempSync(join(tmpdir(), 'roster-template-'));
  try {
    const store = await openStore({ dataDir: dir, target: databaseTarget(db.url, dir) });
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    project.provide('pgTemplateState', await captureState(client));
  } finally {
    await client.end();
  }
  project.provide('pgTemplate', db.name);
  return async () => {
    // The databases the workers kept for reuse (helpers/database.ts), then the template.
    for (const name of await reusedDatabases(admin, db.name)) await dropDatabase(admin, name);
    await dropDatabase(admin, db.name);
  };
}
