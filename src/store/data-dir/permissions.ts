/**
 * The data dir holds the CDN signing secret and token hashes: it is 0700 and its database files
 * 0600, whatever existed before (a dir made by hand, a restore with other modes). Anything looser
 * is tightened, and said, as ssh does.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { join } from 'node:path';

const looser = (path: string, allowed: number) => (statSync(path).mode & 0o777 & ~allowed) !== 0;
const octal = (path: string) => (statSync(path).mode & 0o777).toString(8).padStart(4, '0');

/** Creates or tightens the data dir; returns one line per thing that was looser than it should be. */
export function secureDataDir(dataDir: string): string[] {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const warnings: string[] = [];
  if (looser(dataDir, 0o700)) {
    warnings.push(`data dir ${dataDir} was mode ${octal(dataDir)}; set to 0700`);
    chmodSync(dataDir, 0o700);
  }
  return warnings;
}

/**
 * Makes the named files of the data dir 0600 (the database and its WAL and shared memory); the
 * first is created empty with that mode when missing, so SQLite never makes it world-readable.
 */
export function secureFiles(dataDir: string, names: string[]): string[] {
  const warnings: string[] = [];
  for (const [i, name] of names.entries()) {
    const path = join(dataDir, name);
    if (i === 0 && !existsSync(path)) closeSync(openSync(path, 'a', 0o600));
    if (!existsSync(path) || !looser(path, 0o600)) continue;
    warnings.push(`${path} was mode ${octal(path)}; set to 0600`);
    chmodSync(path, 0o600);
  }
  return warnings;
}
