/**
 * Resolved credentials by (host, token string), each kept with the version of the credentials
 * it was read at and given out only while that version is still current: exact on every call,
 * whichever process changed what. Each backend says what the version is (SQLite: data_version
 * and its own writes; PostgreSQL: an epoch its triggers move), read after the caller asked and
 * shared by the callers that asked together.
 */
import type { CredentialsRepo } from '../store.js';
import type { Credentials } from '../types.js';

/** Caps the cache; a flood of distinct valid tokens just empties it. */
const MAX_CACHED_CREDENTIALS = 10_000;

export interface VersionedCredentials<V> {
  credentials: Credentials;
  /** The version of the same read (a later one may be newer, never an older one). */
  version: V;
}

export function cachedCredentials<V>(
  current: () => Promise<V>,
  lookup: (host: string, tokenString: string) => Promise<VersionedCredentials<V> | undefined>,
): CredentialsRepo {
  const cache = new Map<string, VersionedCredentials<V>>();
  const look = async (key: string, host: string, tokenString: string) => {
    const found = await lookup(host, tokenString);
    if (!found) return undefined;
    if (cache.size >= MAX_CACHED_CREDENTIALS) cache.clear();
    cache.set(key, found);
    return found.credentials;
  };
  return {
    async resolve(host, tokenString) {
      const key = `${host}\n${tokenString}`;
      const cached = cache.get(key);
      if (cached) {
        if ((await current()) === cached.version) return cached.credentials;
        cache.delete(key);
      }
      return look(key, host, tokenString);
    },
  };
}
