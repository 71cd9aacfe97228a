/**
 * V8 flags set at run time through v8.setFlagsFromString, which Node documents as unsupported:
 * a flag V8 no longer knows is reported on stderr ("unrecognized flag"), not thrown, so
 * test/cli/memory.test.ts checks each one on the Node that runs the tests. Both are read when
 * used (undici's WebAssembly HTTP parser is compiled on the first connection; GC flags at each
 * collection), so setting them before the work starts is enough. What each saves, on which Node
 * line: bench/README.md, "Start-up and memory flags".
 */
import { setFlagsFromString } from 'node:v8';

export const V8_FLAGS = {
  /**
   * Every command that talks to the service: V8's baseline code parses a few response headers
   * fast enough, and skipping TurboFan's background recompile of undici's llhttp WebAssembly
   * saves CPU and peak memory on Node 20 (no difference measured on Node 26).
   */
  client: '--liftoff-only',
  /**
   * `users import` (the branch snapshot and a number per row) and `users export` (a run of rows
   * held to sort, and each page's objects, promoted and dropped by the thousand). The old
   * generation grows by 10 % past what survives a full GC instead of V8's dynamic 1.1-4x, which
   * keeps the peak close to `--optimize-for-size` without its cost (that flag also keeps the
   * young generation tiny, and scavenges took a third of a dry run's time).
   */
  bulk: '--heap-growing-percent=10',
} as const;

export function clientMemoryMode(): void {
  setFlagsFromString(V8_FLAGS.client);
}

export function bulkMemoryMode(): void {
  setFlagsFromString(V8_FLAGS.bulk);
}
