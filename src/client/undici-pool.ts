/**
 * undici's Pool with its request API, and nothing else of undici. Its index also loads fetch,
 * WebSocket, the cache and the mock agents (~100 CommonJS files), most of a one-shot command's
 * start-up (bench/README.md, "Figures from src/ comments"). This does what the index does for
 * the part we use: the request API attached to the Dispatcher prototype. undici has no exports
 * map, so these paths are importable; the types are those of undici's public API
 * (types/undici-parts.d.ts).
 */
import type { Pool as UndiciPool } from 'undici';
import api from 'undici/lib/api/index.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import PoolClass from 'undici/lib/dispatcher/pool.js';

// Idempotent: a process that also loads undici's index (tests) has the same functions there.
if (!('request' in Dispatcher.prototype)) Object.assign(Dispatcher.prototype, api);

export const Pool = PoolClass;
export type Pool = UndiciPool;
