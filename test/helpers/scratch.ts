/**
 * What a test file makes and must undo: temp dirs, and clean-ups (a database to drop, a process
 * to stop) run newest first, before the dirs go. Wire `cleanup` to afterEach or afterAll.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';

export function scratch() {
  const dirs: string[] = [];
  const deferred: (() => unknown)[] = [];
  return {
    temp(prefix: string): string {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
    defer(fn: () => unknown): void {
      deferred.push(fn);
    },
    async cleanup(): Promise<void> {
      for (const fn of deferred.splice(0).reverse()) await fn();
      for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A TMPDIR of its own for each test of the file (to see what the code under test leaves there),
 * removed after it; the previous TMPDIR is put back. Returns the current test's dir.
 */
export function tmpdirPerTest(prefix: string): () => string {
  let dir = '';
  let saved: string | undefined;
  beforeEach(() => {
    saved = process.env.TMPDIR;
    dir = mkdtempSync(join(tmpdir(), prefix));
    process.env.TMPDIR = dir;
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    rmSync(dir, { recursive: true, force: true });
  });
  return () => dir;
}
