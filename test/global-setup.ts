/**
 * Once per run, on PostgreSQL: a database with Roster's schema already migrated, which every
 * test's fresh database copies (CREATE DATABASE … TEMPLATE) instead of migrating anew. Dropped
 * when the run ends.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { databaseTarget, openStore } from '../src/store/open.js';
import { createDatabase, dropDatabase } from './helpers/database.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The migrated template database's name ('' off PostgreSQL). */
    pgTemplate: string;
  }
}

export default async function setup(project: TestProject) {
  const admin = process.env.ROSTER_TEST_DATABASE;
  if (!admin) {
    project.provide('pgTemplate', '');
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
  project.provide('pgTemplate', db.name);
  return () => dropDatabase(admin, db.name);
}
