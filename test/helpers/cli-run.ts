/**
 * The CLI's run() in the test process against a real server on a real port: the matrices
 * (presets, formats, error tables) run here, where a command costs no process start-up; test/e2e
 * keeps one spawned journey per feature.
 */

import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import type { Deps } from '../../src/cli/context.js';
import { run } from '../../src/cli/main.js';
import { SCOPES, type Scope } from '../../src/contract/scopes.js';
import type { ServerConfig } from '../../src/server/config.js';
import { fakeIO } from '../cli/helpers.js';
import { TEST_AUDIT } from './audit.js';
import { startServer, type TestServer } from './server.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The S3 endpoint and keys of this run (none off S3): what a CLI needs to reach the bucket. */
export const s3Env = (): Record<string, string | undefined> =>
  process.env.ROSTER_TEST_BLOBS
    ? {
        ROSTER_S3_ENDPOINT: process.env.ROSTER_S3_ENDPOINT,
        AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID,
        AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY,
        AWS_REGION: process.env.AWS_REGION,
      }
    : {};

/**
 * The env that points a CLI at a server's config dir (also its HOME: never the real one), data
 * dir, database and bucket, as an operator's would for the local admin commands.
 */
export const cliEnv = (at: {
  configDir: string;
  dataDir: string;
  database?: string;
  blobs?: string;
}): Record<string, string | undefined> => ({
  ...(at.blobs ? { ROSTER_BLOBS_URL: at.blobs, ...s3Env() } : {}),
  ROSTER_CONFIG_DIR: at.configDir,
  ROSTER_DATA_DIR: at.dataDir,
  HOME: at.configDir,
  ...(at.database ? { ROSTER_DATABASE_URL: at.database } : {}),
});

export type CliRun = (
  args: string[],
  opts?: { env?: Record<string, string | undefined>; stdin?: string; sleep?: Deps['sleep'] },
) => Promise<CliResult>;

/** A `roster` that runs with exactly `env` (plus NO_COLOR and each call's env). */
export function cliWith(env: Record<string, string | undefined>): CliRun {
  return async (args, opts = {}) => {
    const fake = fakeIO({ stdin: opts.stdin ?? '' });
    const code = await run(['node', 'roster', ...args], {
      io: fake.io,
      env: { NO_COLOR: '1', ...env, ...opts.env },
      sleep: opts.sleep,
    });
    return { code, stdout: fake.out(), stderr: fake.err() };
  };
}

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
  return cliWith({
    ROSTER_BASE_URL: `${server.url}/api`,
    ROSTER_TOKEN: token,
    ROSTER_CONFIG_DIR: configDir,
    ...env,
  });
}

export interface CliServed extends TestServer {
  /** The API base URL (…/api). */
  baseUrl: string;
  configDir: string;
  /** Env pointing a CLI (this one, or a spawned one) at this server through profile `local`. */
  env: Record<string, string | undefined>;
  /** `roster ARGS` in-process as the admin (or as `env` says), shaped as the e2e harness's. */
  run(
    args: string[],
    opts?: { env?: Record<string, string | undefined>; input?: string },
  ): Promise<{ exitCode: number; stdout: string; stderr: string }>;
  /** A fresh token on the main branch with the given scopes (comma-separated; all by default). */
  newToken(scopes?: string): Promise<{ id: string; token: string }>;
}

/**
 * A real server in this process and a CLI whose config dir holds its admin token as profile
 * `local`, as `roster serve` leaves it: for command matrices.
 */
export async function startCliServed(config: Partial<ServerConfig> = {}): Promise<CliServed> {
  const server = await startServer(config);
  const configDir = mkdtempSync(join(server.dataDir, 'config-'));
  // The local admin commands (tokens, tenants, branches) open the server's own store.
  const env = cliEnv({ ...server, configDir });
  const cli = cliWith(env);
  const login = await cli([
    ...['login', '--base-url', `${server.url}/api`],
    ...['--token', server.adminToken, '--profile', 'local'],
  ]);
  if (login.code !== 0) throw new Error(`login to the test server failed: ${login.stderr}`);
  return Object.assign(server, {
    baseUrl: `${server.url}/api`,
    configDir,
    env,
    async run(
      args: string[],
      opts: { env?: Record<string, string | undefined>; input?: string } = {},
    ) {
      const r = await cli(args, { env: opts.env, stdin: opts.input });
      return { exitCode: r.code, stdout: r.stdout, stderr: r.stderr };
    },
    async newToken(scopes?: string) {
      const tenant = (await server.store.tenants.byHost('*'))!;
      const branch = (await server.store.branches.byName(tenant.id, 'main'))!;
      const list = (scopes ? scopes.split(',') : [...SCOPES]) as Scope[];
      const { token, secret } = await server.store.tokens.create(
        branch.id,
        'test',
        list,
        ['api'],
        TEST_AUDIT,
      );
      return { id: token.id, token: secret };
    },
  });
}

/** The file names of every medium the served CLI lists, sorted. */
export async function mediumNames(srv: Pick<CliServed, 'run'>): Promise<string[]> {
  const r = await srv.run(['media', 'list', '-o', 'json']);
  if (r.exitCode !== 0) throw new Error(`media list failed: ${r.stderr}`);
  return (JSON.parse(r.stdout) as { fileName: string }[]).map((m) => m.fileName).sort();
}
