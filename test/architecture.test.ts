/**
 * Data flows one way (STYLE.md): command → client → HTTP → routes → service → store, with the
 * contract shared by both ends. No lower layer imports a higher one; this scans every import.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { expect, test } from 'vitest';

const SRC = resolve(import.meta.dirname, '..', 'src');
/** Which layers each layer may import (besides itself). */
const ALLOWED: Record<string, string[]> = {
  contract: [],
  files: [],
  // Decoding what libvips cannot read (HEIC, BMP, ICO): for the server's previews and the CLI's avatars.
  images: ['contract'],
  store: ['contract'],
  server: ['contract', 'store', 'images'],
  client: ['contract'],
  import: ['contract', 'client', 'files'],
  cli: ['contract', 'client', 'import', 'files', 'images', 'server', 'store'],
};

function* files(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (entry.name.endsWith('.ts')) yield path;
  }
}

test('no layer imports one above it', () => {
  const wrong: string[] = [];
  for (const file of files(SRC)) {
    const layer = relative(SRC, file).split('/')[0]!;
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:from|import\()\s*'(\.[^']+)'/g)) {
      const target = relative(SRC, resolve(file, '..', m[1]!)).split('/')[0]!;
      if (target !== layer && !ALLOWED[layer]?.includes(target)) {
        wrong.push(`${relative(SRC, file)} imports ${m[1]} (${layer} → ${target})`);
      }
    }
  }
  expect(wrong).toEqual([]);
});

test('outside the store, a backend is reached only through the Store interface', () => {
  const wrong: string[] = [];
  for (const file of files(SRC)) {
    if (relative(SRC, file).startsWith('store/')) continue;
    const text = readFileSync(file, 'utf8');
    // A type (for `roster backup` and `roster copy`) may be named; code is only reached via
    // store/open.ts, so neither better-sqlite3 nor pg is loaded where the other is used.
    for (const m of text.matchAll(
      /^import (?!type )[^;]*'(\.[^']*store\/(?:sqlite|postgres)\/[^']+)'/gm,
    )) {
      wrong.push(`${relative(SRC, file)} imports ${m[1]}`);
    }
    for (const m of text.matchAll(/import\(\s*'(\.[^']*store\/(?:sqlite|postgres)\/[^']+)'/g)) {
      wrong.push(`${relative(SRC, file)} imports ${m[1]}`);
    }
    if (/from 'better-sqlite3'|from 'pg'/.test(text))
      wrong.push(`${relative(SRC, file)} imports a driver`);
  }
  expect(wrong).toEqual([]);
});
