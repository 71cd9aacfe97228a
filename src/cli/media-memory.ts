/**
 * What each base URL accepted (vendor word, media types, whether it has a catalog), kept in
 * the config dir next to the profiles but apart from them (CONTRACT), so setups that use only
 * ROSTER_BASE_URL and ROSTER_TOKEN remember too. The file holds no token; it is still written
 * 0600 in a 0700 directory, as the config file is.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { MediaTypeMemory, Remembered } from '../client/index.js';
import { configPath } from './paths.js';

/** Base URLs remembered at most; the least recently written go first. */
const MAX_ENTRIES = 100;

interface Stored extends Remembered {
  /** When it was last written (ms since the epoch). */
  at: number;
}

export const mediaMemoryPath = (env: NodeJS.ProcessEnv) =>
  join(dirname(configPath(env)), 'media-types.json');

function readAll(path: string): Record<string, Stored> {
  try {
    const data: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return typeof data === 'object' && data !== null && !Array.isArray(data)
      ? (data as Record<string, Stored>)
      : {};
  } catch {
    // Missing or damaged: start afresh; the worst it costs is one step down.
    return {};
  }
}

export function fileMediaMemory(env: NodeJS.ProcessEnv): MediaTypeMemory {
  const path = mediaMemoryPath(env);
  return {
    load(baseUrl) {
      const entry = readAll(path)[baseUrl];
      return typeof entry === 'object' && entry !== null ? entry : undefined;
    },
    save(baseUrl, value) {
      const all = readAll(path);
      all[baseUrl] = { ...value, at: Date.now() };
      const kept = Object.entries(all)
        .sort(([, a], [, b]) => (b.at ?? 0) - (a.at ?? 0))
        .slice(0, MAX_ENTRIES);
      const dir = dirname(path);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const temp = `${path}.${process.pid}.tmp`;
      writeFileSync(temp, `${JSON.stringify(Object.fromEntries(kept), null, 2)}\n`, {
        mode: 0o600,
      });
      chmodSync(temp, 0o600);
      renameSync(temp, path);
    },
  };
}
