/**
 * Resolved credentials by (host, token string), each kept with the version of the credentials
 * it was read at and given out only while that version is still current: exact on every call,
 * whichever process changed what. Each backend says what the version is (SQLite: data_version
 * and its own writes; PostgreSQL: an epoch its triggers move, read fresh).
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
  current: () => V | Promise<V>,
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
  const check = (key: string, cached: VersionedCredentials<V>, version: V) => {
    if (version === cached.version) return cached.credentials;
    cache.delete(key);
    return undefined;
  };
  return {
    // Not an async function: a cached token checked against a version read synchronously
    // (SQLite's) answers without the extra promise and hop an async frame costs every request.
    resolve(host, tokenString) {
      const key = `${host}\n${tokenString}`;
      const cached = cache.get(key);
      if (!cached) return look(key, host, tokenString);
      let version: V | Promise<V>;
      try {
        version = current();
      } catch (err) {
        return Promise.reject(err);
      }
      if (version instanceof Promise) {
        return version.then((v) => check(key, cached, v) ?? look(key, host, tokenString));
      }
      const credentials = check(key, cached, version);
      return credentials ? Promise.resolve(credentials) : look(key, host, tokenString);
    },
  };
}
