/**
 * `-` as a file: stdin copied to a private temp file (0600 in a 0700 dir), for commands that
 * read their input more than once (`users import` plans, then applies). Removed at the end, and
 * when Ctrl-C ends the process first (synchronously on exit: temp-dir.ts), since stdin may hold
 * a whole HR export.
 */
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { type Deps, onCleanup } from './context.js';
import { tempDir } from './temp-dir.js';

export async function spoolStdin(deps: Deps, name: string): Promise<string> {
  const { dir, dispose } = await tempDir('roster-stdin-');
  onCleanup(deps, dispose);
  const path = join(dir, name);
  await pipeline(deps.io.stdin, createWriteStream(path, { mode: 0o600 }));
  return path;
}
