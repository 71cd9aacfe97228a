/**
 * bin/roster.js keeps V8's compiled code of the CLI on disk where Node can (>= 22.1,
 * module.enableCompileCache), under os.tmpdir(), so the next command skips compiling the bundle;
 * NODE_DISABLE_COMPILE_CACHE=1 turns it off. Node 20 has no such cache: there the guard lets the
 * CLI run all the same and nothing is written.
 */
import { existsSync, readdirSync } from 'node:fs';
import module from 'node:module';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { roster } from '../helpers/e2e.js';
import { scratch } from '../helpers/scratch.js';

const dirs = scratch();
afterEach(dirs.cleanup);

const nodeHasCache = 'enableCompileCache' in module;

/** The files of the compile cache a command left in a TMPDIR of its own. */
async function cacheAfterRun(env: Record<string, string> = {}): Promise<string[]> {
  const dir = dirs.temp('roster-compile-cache-');
  const r = await roster(['--version'], { env: { TMPDIR: dir, ...env } });
  expect(r.exitCode, r.stderr).toBe(0);
  expect(r.stderr).toBe('');
  const cache = join(dir, 'node-compile-cache');
  if (!existsSync(cache)) return [];
  return readdirSync(cache, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name);
}

it(`the CLI's compiled code is cached under os.tmpdir() ${nodeHasCache ? 'on this Node' : '(not on Node 20, which has no cache)'}`, async () => {
  const files = await cacheAfterRun();
  if (nodeHasCache) expect(files.length).toBeGreaterThan(0);
  else expect(files).toEqual([]);
});

it('NODE_DISABLE_COMPILE_CACHE=1 leaves no cache', async () => {
  expect(await cacheAfterRun({ NODE_DISABLE_COMPILE_CACHE: '1' })).toEqual([]);
});
