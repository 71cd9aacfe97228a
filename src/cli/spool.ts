/**
 * `-` as a file: stdin copied to a private temp file (0600 in a 0700 dir), for commands that
 * read their input more than once (`users import` plans, then applies). Removed at the end.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { type Deps, onCleanup } from './context.js';

export async function spoolStdin(deps: Deps, name: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'roster-stdin-'));
  onCleanup(deps, () => rm(dir, { recursive: true, force: true }));
  const path = join(dir, name);
  await pipeline(deps.io.stdin, createWriteStream(path, { mode: 0o600 }));
  return path;
}
