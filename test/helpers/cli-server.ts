/**
 * The old name of the e2e harness (e2e.ts), kept for the import tests until they move: the same
 * spawned server, plus `cli`, which runs the CLI synchronously with the test's environment.
 */
import { execaSync } from 'execa';
import type { ServerConfig } from '../../src/server/config.js';
import { BIN, type Served, serve } from './e2e.js';

export { BIN, profileToken, spawnServe } from './e2e.js';

export interface CliServer extends Served {
  cli(
    args: string[],
    opts?: { env?: Record<string, string>; input?: string },
  ): ReturnType<typeof execaSync>;
}

export async function startCliServer(config: Partial<ServerConfig> = {}): Promise<CliServer> {
  const s = await serve(config);
  return Object.assign(s, {
    cli: (args: string[], opts: { env?: Record<string, string>; input?: string } = {}) =>
      execaSync(process.execPath, [BIN, ...args], {
        env: { ...s.env, ...opts.env },
        input: opts.input ?? '',
        reject: false,
      }),
  });
}
