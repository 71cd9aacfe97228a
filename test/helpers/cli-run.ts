/**
 * The CLI's run() in the test process against a real server on a real port: the matrices
 * (presets, formats, error tables) run here, where a command costs no process start-up; test/e2e
 * keeps one spawned journey per feature.
 */
import { run } from '../../src/cli/main.js';
import { fakeIO } from '../cli/helpers.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export type CliRun = (
  args: string[],
  opts?: { env?: Record<string, string>; stdin?: string },
) => Promise<CliResult>;

/**
 * A `roster` bound to a server (its API under `url`) and a config dir: `ROSTER_TOKEN` is `token`
 * unless a call's env says otherwise. Never a terminal; stdin empty unless given.
 */
export function cliAgainst(
  server: { url: string },
  token: string,
  configDir: string,
  env: Record<string, string> = {},
): CliRun {
  return async (args, opts = {}) => {
    const fake = fakeIO({ stdin: opts.stdin ?? '' });
    const code = await run(['node', 'roster', ...args], {
      io: fake.io,
      env: {
        ROSTER_BASE_URL: `${server.url}/api`,
        ROSTER_TOKEN: token,
        ROSTER_CONFIG_DIR: configDir,
        NO_COLOR: '1',
        ...env,
        ...opts.env,
      },
    });
    return { code, stdout: fake.out(), stderr: fake.err() };
  };
}
