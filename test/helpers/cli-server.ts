/**
 * The same TestServer as server.ts, but the real thing: the built CLI's `roster serve` in its own
 * process, tokens made with `roster tokens create --json`. Suites run unchanged against both.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execaNode, execaSync, type ResultPromise } from 'execa';
import { SCOPES } from '../../src/contract/scopes.js';
import type { ServerConfig } from '../../src/server/config.js';
import { databaseTarget, openStore } from '../../src/store/open.js';
import { testBlobs, testDatabase } from './database.js';
import { requester, type TestServer } from './server.js';

export const BIN = join(import.meta.dirname, '..', '..', 'bin', 'roster.js');

export interface CliServer extends TestServer {
  child: ResultPromise;
  configDir: string;
  env: Record<string, string>;
  /** Runs the built CLI with this server's data dir and config dir. */
  cli(
    args: string[],
    opts?: { env?: Record<string, string>; input?: string },
  ): ReturnType<typeof execaSync>;
}

/** Starts `roster serve --port 0` and resolves once it listens. */
export async function spawnServe(
  dataDir: string,
  configDir: string,
  extraArgs: string[] = [],
  env: Record<string, string> = {},
): Promise<{ child: ResultPromise; url: string; logs: string[] }> {
  const child = execaNode(
    BIN,
    ['serve', '--port', '0', '--data', dataDir, '--access-log', ...extraArgs],
    {
      env: { ROSTER_CONFIG_DIR: configDir, NO_COLOR: '1', ...env },
      stdin: 'ignore',
      reject: false,
    },
  );
  const logs: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        logs.push(line);
        const m = /listening on (http:\/\/\S+)\/api/.exec(line);
        if (m) resolve(m[1]!);
      }
    });
    child.then((r) => reject(new Error(`serve exited early (${r.exitCode}): ${logs.join('\n')}`)));
  });
  return { child, url, logs };
}

export async function startCliServer(config: Partial<ServerConfig> = {}): Promise<CliServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'roster-e2e-data-'));
  const configDir = mkdtempSync(join(tmpdir(), 'roster-e2e-config-'));
  // On PostgreSQL (ROSTER_TEST_DATABASE), serve and every CLI call use a fresh database.
  const database = await testDatabase();
  const blobs = await testBlobs();
  const args = [
    ...(database.url ? ['--database', database.url] : []),
    ...(blobs.url ? ['--blobs', blobs.url] : []),
    ...(config.vendor ? ['--vendor', config.vendor] : []),
    ...(config.likePlatform ? ['--like-platform'] : []),
    ...(config.maxUploadBytes ? ['--max-upload-size', String(config.maxUploadBytes)] : []),
    ...(config.rateLimit ? ['--rate-limit', `${config.rateLimit}/s`] : []),
  ];
  const { child, url, logs } = await spawnServe(dataDir, configDir, args);
  const profile = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).profiles.local;
  const env: Record<string, string> = {
    ROSTER_CONFIG_DIR: configDir,
    ROSTER_DATA_DIR: dataDir,
    NO_COLOR: '1',
    ...(database.url ? { ROSTER_DATABASE_URL: database.url } : {}),
    ...(blobs.url ? { ROSTER_BLOBS_URL: blobs.url } : {}),
  };
  const cli: CliServer['cli'] = (cliArgs, opts = {}) =>
    execaSync(process.execPath, [BIN, ...cliArgs], {
      env: { ...env, ...opts.env },
      input: opts.input ?? '',
      reject: false,
    });
  const store = await openStore({
    dataDir,
    target: databaseTarget(database.url, dataDir),
    blobs: blobs.url,
  });

  return {
    url,
    dataDir,
    configDir,
    env,
    child,
    store,
    adminToken: profile.token,
    logs,
    cli,
    async token({ scopes = [...SCOPES], branch = 'main', tenant = '*' } = {}) {
      if (!(await store.tenants.byHost(tenant))) cli(['tenants', 'add', tenant]);
      const t = (await store.tenants.byHost(tenant))!;
      if (!(await store.branches.byName(t.id, branch)))
        cli(['branches', 'add', branch, '--tenant', tenant]);
      const r = cli([
        'tokens',
        'create',
        '--json',
        '--tenant',
        tenant,
        '--branch',
        branch,
        '--scopes',
        scopes.join(','),
      ]);
      if (r.exitCode !== 0) throw new Error(`tokens create failed: ${r.stderr}`);
      return JSON.parse(String(r.stdout)).token as string;
    },
    req: requester(url, profile.token),
    async close() {
      child.kill('SIGTERM');
      await child;
      await store.close();
      await database.drop();
      await blobs.drop();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(configDir, { recursive: true, force: true });
    },
  };
}

/** Runs the built CLI to completion, never rejecting: the result carries the exit code. */
export const roster = (args: string[], env: Record<string, string> = {}) =>
  execaSync(process.execPath, [BIN, ...args], { env: { NO_COLOR: '1', ...env }, reject: false });

/** The admin token `serve` saved as profile "local" in `configDir` (undefined: none saved). */
export const profileToken = (configDir: string): string | undefined =>
  JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).profiles?.local?.token;
