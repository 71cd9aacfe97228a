/**
 * Temp dirs of a command that go when it is done, and when the process ends first: Ctrl-C on a
 * command that did not take the signal ends the process with process.exit, which runs no async
 * cleanup, so they are removed synchronously on 'exit' (one listener for all of them).
 */
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const live = new Set<string>();
const removeLive = () => {
  for (const dir of live) rmSync(dir, { recursive: true, force: true });
};

/** A new dir under TMPDIR named `prefix…`; `dispose` removes it. */
export async function tempDir(prefix: string): Promise<{ dir: string; dispose(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  if (live.size === 0) process.once('exit', removeLive);
  live.add(dir);
  return {
    dir,
    async dispose() {
      // Forgotten only once removed: a cleanup that Ctrl-C starts is cut short by process.exit,
      // and the exit listener must still find the dir.
      await rm(dir, { recursive: true, force: true });
      live.delete(dir);
      if (live.size === 0) process.off('exit', removeLive);
    },
  };
}
