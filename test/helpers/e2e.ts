/**
 * The e2e harness: the built CLI run as a child process against a server on a real port — the
 * app in this process (`serve`), or `roster serve` itself spawned on a temp data dir and config
 * dir (`serveProcess`, for the tests of the process). Both are on PostgreSQL and S3 when the run
 * is, and both are TestServers (server.ts), so the HTTP suites run against either unchanged.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa, execaNode, type ResultPromise } from 'execa';
import { SCOPES } from '../../src/contract/scopes.js';
import type { ServerConfig } from '../../src/server/config.js';
import { databaseTarget, openStore } from '../../src/store/open.js';
import { cliEnv, cliWith, startCliServed } from './cli-run.js';

export { s3Env } from './cli-run.js';

import { testBlobs, testDatabase } from './database.js';
import { eachLine } from './lines.js';
import { scratch } from './scratch.js';
import { requester, type TestServer } from './server.js';

export const BIN = join(import.meta.dirname, '..', '..', 'bin', 'roster.js');

export type Env = Record<string, string | undefined>;

export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** The signal that ended it, if one did. */
  signal?: string;
}

export interface RunOptions {
  env?: Env;
  /** What stdin reads; without it stdin is a pipe left open (or as `stdin` says). */
  input?: string;
  stdin?: 'pipe' | 'ignore';
  timeoutMs?: number;
  /** A command the CLI runs under, e.g. `['setpriv', …, '--']`: node and the CLI follow it. */
  under?: string[];
  /** Run as this user and group (a test as root that needs one without root's reach). */
  uid?: number;
  gid?: number;
}

type Stream = 'stdout' | 'stderr';

/** A command that is running: its output as it arrives, signals to send, and its end. */
export interface Running {
  /** The child itself, for what this does not wrap (its pid, its pipes). */
  child: ResultPromise;
  /** Sends `signal` to the CLI (SIGINT is Ctrl-C). */
  kill(signal: NodeJS.Signals): void;
  /** What `stream` printed so far. */
  output(stream?: Stream): string;
  /** The whole lines `stream` printed so far. */
  lines(stream?: Stream): string[];
  /** Resolves with `stream`'s output once it holds `match` (or `match` returns true on it). */
  waitFor(match: string | RegExp | ((text: string) => boolean), stream?: Stream): Promise<string>;
  /** Resolves with the first whole line of `stream` that holds `match`, printed already or later. */
  line(match: string | RegExp, stream?: Stream): Promise<string>;
  /** Resolves once the command ended, never rejecting. */
  done: Promise<RunResult>;
}

const holds = (text: string, match: string | RegExp) =>
  typeof match === 'string' ? text.includes(match) : match.test(text);

/**
 * Starts the built CLI with exactly `env` (nothing inherited but PATH), for a test that reads
 * its output as it comes, signals it or waits for a line. A wait rejects if the command ends
 * first, with what it printed.
 */
export function start(args: string[], opts: RunOptions = {}): Running {
  // A command whose test names no config dir gets a HOME of its own: the CLI writes what a base
  // URL accepted into its config dir, which must never be the real one.
  const own = opts.env?.HOME || opts.env?.ROSTER_CONFIG_DIR ? undefined : scratch();
  const [under, ...underArgs] = opts.under ?? [];
  const node = [process.execPath, BIN, ...args];
  const child = execa(under ?? process.execPath, under ? [...underArgs, ...node] : node.slice(1), {
    env: {
      PATH: process.env.PATH,
      NO_COLOR: '1',
      ...(own ? { HOME: own.temp('roster-e2e-home-') } : {}),
      ...opts.env,
    },
    extendEnv: false,
    ...(opts.input !== undefined ? { input: opts.input } : {}),
    ...(opts.stdin ? { stdin: opts.stdin } : {}),
    reject: false,
    ...(opts.timeoutMs ? { timeout: opts.timeoutMs } : {}),
    stripFinalNewline: false,
    ...(opts.uid !== undefined ? { uid: opts.uid } : {}),
    ...(opts.gid !== undefined ? { gid: opts.gid } : {}),
  });
  const text: Record<Stream, string> = { stdout: '', stderr: '' };
  const whole: Record<Stream, string[]> = { stdout: [], stderr: [] };
  const waiters: (() => void)[] = [];
  const wake = () => {
    for (const w of waiters.splice(0)) w();
  };
  for (const stream of ['stdout', 'stderr'] as const) {
    child[stream]?.on('data', (chunk: Buffer) => {
      text[stream] += chunk.toString();
      wake();
    });
    if (child[stream]) eachLine(child[stream], (l) => whole[stream].push(l));
  }
  let ended = false;
  const done = child.then(async (r) => {
    ended = true;
    wake();
    await own?.cleanup();
    return {
      exitCode: r.exitCode ?? -1,
      stdout: String(r.stdout),
      stderr: String(r.stderr),
      ...(r.signal ? { signal: r.signal } : {}),
    };
  });
  const until = async <T>(found: () => T | undefined, what: string, stream: Stream) => {
    for (;;) {
      const hit = found();
      if (hit !== undefined) return hit;
      if (ended)
        throw new Error(
          `roster ${args.join(' ')} ended before ${what} on ${stream}:\n${text[stream]}`,
        );
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return {
    child,
    kill: (signal) => child.kill(signal),
    output: (stream = 'stderr') => text[stream],
    lines: (stream = 'stdout') => [...whole[stream]],
    waitFor: (match, stream = 'stderr') =>
      until(
        () => {
          const t = text[stream];
          return (typeof match === 'function' ? match(t) : holds(t, match)) ? t : undefined;
        },
        `output matching ${String(match)}`,
        stream,
      ),
    line: (match, stream = 'stderr') =>
      until(
        () => whole[stream].find((l) => holds(l, match)),
        `a line matching ${String(match)}`,
        stream,
      ),
    done,
  };
}

/** Runs the built CLI with exactly `env` (nothing inherited but PATH), never rejecting. */
export async function roster(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  return start(args, { ...opts, input: opts.input ?? '', timeoutMs: opts.timeoutMs ?? 30_000 })
    .done;
}

/** Starts `roster serve --port 0 --access-log` and resolves once it listens. */
export async function spawnServe(
  dataDir: string,
  configDir: string,
  extraArgs: string[] = [],
  env: Env = {},
): Promise<{ child: ResultPromise; url: string; logs: string[] }> {
  const child = execaNode(
    BIN,
    ['serve', '--port', '0', '--data', dataDir, '--access-log', ...extraArgs],
    {
      env: { ROSTER_CONFIG_DIR: configDir, NO_COLOR: '1', ...env },
      // execaNode passes on this process's node flags by default: vitest's own.
      nodeOptions: [],
      stdin: 'ignore',
      reject: false,
    },
  );
  const logs: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    eachLine(child.stderr!, (line) => {
      logs.push(line);
      const m = /listening on (http:\/\/\S+)\/api/.exec(line);
      if (m) resolve(m[1]!);
    });
    child.then((r) => reject(new Error(`serve exited early (${r.exitCode}): ${logs.join('\n')}`)));
  });
  return { child, url, logs };
}

/** The admin token `serve` saved as profile "local" in `configDir` (undefined: none saved). */
export const profileToken = (configDir: string): string | undefined =>
  JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).profiles?.local?.token;

export interface Served extends TestServer {
  /** The API base URL (…/api). */
  baseUrl: string;
  configDir: string;
  /** Env pointing the CLI at this server's config dir, data dir, database and bucket. */
  env: Env;
  /** `roster` with this server's env (plus `env`). */
  run(args: string[], opts?: { env?: Env; input?: string }): Promise<RunResult>;
  /** `start` with this server's env (plus `opts.env`): a command to stream, signal, wait on. */
  start(args: string[], opts?: RunOptions): Running;
  /** A fresh token via `roster tokens create --json`. */
  newToken(scopes?: string): Promise<{ id: string; token: string }>;
}

export interface ServedProcess extends Served {
  child: ResultPromise;
}

export interface ServeOptions extends Partial<ServerConfig> {
  /** More `roster serve` flags. */
  args?: string[];
}

/**
 * The app in this process on a real port, for the journeys of the spawned CLI: their subject is
 * the CLI, which talks HTTP to it as to `roster serve`, and a file saves a serve's start-up
 * (~0.7 s of CPU). Its config dir holds the admin token as profile `local`, as serve leaves it.
 * The spawned CLI must be awaited, never run synchronously: this process answers its requests.
 */
export async function serve(config: Partial<ServerConfig> = {}): Promise<Served> {
  const served = await startCliServed(config);
  return Object.assign(served, {
    run: (cliArgs: string[], opts: { env?: Env; input?: string } = {}) =>
      roster(cliArgs, { ...opts, env: { ...served.env, ...opts.env } }),
    start: (cliArgs: string[], opts: RunOptions = {}) =>
      start(cliArgs, { ...opts, env: { ...served.env, ...opts.env } }),
  });
}

/** Starts `roster serve` on fresh temp dirs (and a fresh database and bucket when the run has them). */
export async function serveProcess({
  args = [],
  ...config
}: ServeOptions = {}): Promise<ServedProcess> {
  const dirs = scratch();
  const dataDir = dirs.temp('roster-e2e-data-');
  const configDir = dirs.temp('roster-e2e-config-');
  // On PostgreSQL (ROSTER_TEST_DATABASE), serve and the local admin commands share a fresh
  // database through the environment, as an operator's would.
  const database = await testDatabase();
  dirs.defer(database.drop);
  const blobs = await testBlobs();
  dirs.defer(blobs.drop);
  const env = cliEnv({ configDir, dataDir, database: database.url, blobs: blobs.url });
  const { child, url, logs } = await spawnServe(
    dataDir,
    configDir,
    [
      ...(config.vendor ? ['--vendor', config.vendor] : []),
      ...(config.likePlatform ? ['--like-platform'] : []),
      ...(config.maxUploadBytes ? ['--max-upload-size', String(config.maxUploadBytes)] : []),
      ...(config.rateLimit ? ['--rate-limit', `${config.rateLimit}/s`] : []),
      ...args,
    ],
    env,
  );
  dirs.defer(async () => {
    child.kill('SIGTERM');
    await child;
  });
  // The suites look inside the store, as they do in process.
  const store = await openStore({
    dataDir,
    target: databaseTarget(database.url, dataDir),
    blobs: blobs.url,
  });
  dirs.defer(() => store.close());
  const adminToken = profileToken(configDir)!;
  const run: Served['run'] = (cliArgs, opts = {}) =>
    roster(cliArgs, { ...opts, env: { ...env, ...opts.env } });
  // The suites' tokens, tenants and branches: the local admin commands on this serve's data,
  // in this process (their own journey spawns them: serve-lifecycle.test.ts).
  const admin = async (cliArgs: string[]) => {
    const r = await cliWith(env)(cliArgs);
    if (r.code !== 0) throw new Error(`roster ${cliArgs.join(' ')} failed: ${r.stderr}`);
    return r.stdout;
  };
  const created = async (cliArgs: string[]) =>
    JSON.parse(await admin(['tokens', 'create', '--json', ...cliArgs])) as {
      id: string;
      token: string;
    };
  return {
    url,
    baseUrl: `${url}/api`,
    dataDir,
    configDir,
    database: database.url,
    child,
    store,
    adminToken,
    logs,
    env,
    run,
    start: (cliArgs, opts = {}) => start(cliArgs, { ...opts, env: { ...env, ...opts.env } }),
    newToken: (scopes) => created(scopes ? ['--scopes', scopes] : []),
    async token({ scopes = [...SCOPES], branch = 'main', tenant = '*', channels = ['api'] } = {}) {
      if (!(await store.tenants.byHost(tenant))) await admin(['tenants', 'add', tenant]);
      const t = (await store.tenants.byHost(tenant))!;
      if (!(await store.branches.byName(t.id, branch)))
        await admin(['branches', 'add', branch, '--tenant', tenant]);
      const args = ['--tenant', tenant, '--branch', branch, '--scopes', scopes.join(',')];
      args.push('--for', channels.join(','));
      if (channels.includes('scim')) args.push('--url', url);
      return (await created(args)).token;
    },
    req: requester(url, adminToken),
    close: dirs.cleanup,
  };
}
