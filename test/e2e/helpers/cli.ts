/**
 * E2E helpers for the CLI: the built `roster` run as a child process against a real
 * `roster serve` on a temp data dir and config dir, plus tiny misbehaving HTTP servers.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { testBlobs, testDatabase } from '../../helpers/database.js';

export const BIN = join(import.meta.dirname, '..', '..', '..', 'bin', 'roster.js');

export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export type Env = Record<string, string | undefined>;

/** Runs the built CLI with exactly `env` (nothing inherited but PATH), never rejecting. */
export async function roster(
  args: string[],
  opts: { env?: Env; input?: string } = {},
): Promise<RunResult> {
  // A command whose test names no config dir gets a HOME of its own: the CLI writes what a base
  // URL accepted into its config dir, which must never be the real one.
  const home =
    opts.env?.HOME || opts.env?.ROSTER_CONFIG_DIR
      ? undefined
      : mkdtempSync(join(tmpdir(), 'roster-e2e-home-'));
  try {
    const r = await execa(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH, NO_COLOR: '1', ...(home ? { HOME: home } : {}), ...opts.env },
      extendEnv: false,
      input: opts.input ?? '',
      reject: false,
      timeout: 30_000,
      stripFinalNewline: false,
    });
    return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
  } finally {
    if (home) rmSync(home, { recursive: true, force: true });
  }
}

export interface Served {
  /** The API base URL (…/api). */
  baseUrl: string;
  dataDir: string;
  configDir: string;
  /** The admin token `serve` saved as profile `local`. */
  token: string;
  /** Env pointing the CLI at this config dir and data dir. */
  env: Env;
  /** `roster` with this server's env (plus `env`). */
  run(args: string[], opts?: { env?: Env; input?: string }): Promise<RunResult>;
  /** A fresh token via `roster tokens create --json`. */
  newToken(scopes?: string): Promise<{ id: string; token: string }>;
  close(): Promise<void>;
}

/** Starts `roster serve --port 0` on a temp data dir; resolves once it listens. */
export async function serve(extraArgs: string[] = []): Promise<Served> {
  const dataDir = mkdtempSync(join(tmpdir(), 'roster-e2e-data-'));
  const configDir = mkdtempSync(join(tmpdir(), 'roster-e2e-config-'));
  // On PostgreSQL (ROSTER_TEST_DATABASE), serve and the local admin commands share a fresh
  // database through the environment, as an operator's would.
  const database = await testDatabase();
  const blobs = await testBlobs();
  const s3Env: Env = blobs.url
    ? {
        ROSTER_BLOBS_URL: blobs.url,
        ROSTER_S3_ENDPOINT: process.env.ROSTER_S3_ENDPOINT,
        AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID,
        AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY,
        AWS_REGION: process.env.AWS_REGION,
      }
    : {};
  const env: Env = {
    ...s3Env,
    ROSTER_CONFIG_DIR: configDir,
    ROSTER_DATA_DIR: dataDir,
    HOME: configDir,
    ...(database.url ? { ROSTER_DATABASE_URL: database.url } : {}),
  };
  const child: ResultPromise = execa(
    process.execPath,
    [BIN, 'serve', '--port', '0', '--data', dataDir, ...extraArgs],
    { env: { PATH: process.env.PATH, NO_COLOR: '1', ...env }, extendEnv: false, reject: false },
  );
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let seen = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const m = /listening on (http:\/\/\S+\/api)/.exec(seen);
      if (m) resolve(m[1]!);
    });
    child.then((r) => reject(new Error(`serve exited early (${r.exitCode}): ${seen}`)));
  });
  const config = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8'));
  const run: Served['run'] = (args, opts = {}) =>
    roster(args, { ...opts, env: { ...env, ...opts.env } });
  return {
    baseUrl,
    dataDir,
    configDir,
    token: config.profiles.local.token,
    env,
    run,
    async newToken(scopes) {
      const r = await run(['tokens', 'create', '--json', ...(scopes ? ['--scopes', scopes] : [])]);
      if (r.exitCode !== 0) throw new Error(`tokens create failed: ${r.stderr}`);
      return JSON.parse(r.stdout);
    },
    async close() {
      child.kill('SIGTERM');
      await child;
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(configDir, { recursive: true, force: true });
      await database.drop();
      await blobs.drop();
    },
  };
}

export interface FakeServer {
  url: string;
  /** How many requests (or connections, for `dropping`) arrived. */
  hits: () => number;
  close(): Promise<void>;
}

/** A plain HTTP server answering with `handler(request number from 1, req, res)`. */
export async function httpServer(
  handler: (n: number, req: IncomingMessage, res: ServerResponse) => void,
): Promise<FakeServer> {
  let n = 0;
  const server = createServer((req, res) => handler(++n, req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits: () => n,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A JSON answer as the service would send it. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** An empty page of users, in the users.v2 list shape. */
export const EMPTY_PAGE = { total: 0, limit: 100, offset: 0, data: [] };
