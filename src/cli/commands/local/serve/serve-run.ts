/** The body of `roster serve`, loaded only when serve runs (Koa and SQLite are slow to load). */
import { createServer } from 'node:net';
import type { Store } from '../../../../store/store.js';
import { proxyFromEnv } from '../../../client.js';
import { DEFAULT_PROFILE, openConfig } from '../../../config.js';
import { type Deps, note } from '../../../context.js';
import { CliError, usageError } from '../../../errors.js';
import { openLocalStore } from '../../../local-store.js';
import { dataDirOf } from '../../../paths.js';
import { onInterrupt } from '../../../signals.js';
import { parsePublicUrl } from '../options.js';
import { type ServeProfileResult, saveServeProfile } from './profile.js';

export interface ServeOptions {
  port: number;
  host: string;
  data?: string;
  database?: string;
  blobs?: string;
  dbPoolSize?: number;
  dbStatementTimeout?: number;
  vendor: string;
  likePlatform?: boolean;
  rateLimit?: string;
  maxUploadSize?: number;
  cdnUrl?: string;
  cdnTokenOnly?: boolean;
  publicUrl?: string;
  forceSweep?: boolean;
  sweepGrace?: number;
  eventsRetention?: number;
  bodyTimeout?: number;
  smtpUrl?: string;
  quota?: number;
  stripMetadata?: boolean;
  accessLog?: boolean;
  keepAliveTimeout?: number;
  maxConnectionsPerClient?: number;
  drainDelay?: number;
  metricsToken?: string;
  webhooksAllow?: string;
  webhooksAllowHttp?: boolean;
}

/** The base URL a local client uses: a wildcard listen address is reached on loopback. */
function localBaseUrl(host: string, port: number) {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host;
  const shown =
    reachable.includes(':') && !reachable.startsWith('[') ? `[${reachable}]` : reachable;
  return `http://${shown}:${port}/api`;
}

/**
 * The service's modules. Imported, not bundled: the CLI is one bundle (scripts/bundle-cli.mjs)
 * that reaches the service through import() only, so no other command loads Koa or a database.
 */
async function loadService() {
  const [app, config, rateLimit, sweep, lock, harden, egress] = await Promise.all([
    import('../../../../server/app.js'),
    import('../../../../server/config.js'),
    import('../../../../server/http/rate-limit.js'),
    import('../../../../server/media/sweep.js'),
    import('../../../../store/data-dir/lock.js'),
    import('../../../../server/harden.js'),
    import('../../../../server/webhooks/egress.js'),
  ]);
  return {
    ...app,
    ...config,
    ...rateLimit,
    ...sweep,
    ...lock,
    ...harden,
    parseAllowList: egress.parseAllowList,
  };
}
type Service = Awaited<ReturnType<typeof loadService>>;

function takeLock(dataDir: string, { lockDataDir, DataDirBusyError }: Service) {
  try {
    return lockDataDir(dataDir);
  } catch (err) {
    if (err instanceof DataDirBusyError) throw usageError(err.message);
    throw err;
  }
}

const portInUse = (port: number, host: string) =>
  usageError(`port ${port} on ${host} is in use; pick another with --port`);

/** Binds the port for a moment: a busy one is refused before the data dir is touched. */
async function checkPortFree(port: number, host: string) {
  if (port === 0) return;
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? portInUse(port, host) : err),
    );
    probe.listen(port, host, () => resolve());
  });
  await new Promise((resolve) => probe.close(resolve));
}

export async function runServe(opts: ServeOptions, deps: Deps): Promise<void> {
  const { io, env } = deps;
  const service = await loadService();
  const config = serverConfig(opts, env, service);
  const { dataDir } = config;
  const { lock, store } = await openGuarded(opts, deps, service, dataDir);
  for (const w of store.permissionWarnings) note(io, `warning: ${w}`);
  const app = await service.createApp({ store, config, log: (line) => note(io, line) });

  // Before the first request can arrive, and only once the start-up checks passed (a serve
  // refused before here leaves the process, an in-process test's too, as it was).
  service.deleteProtoAccessor();
  let running: Awaited<ReturnType<typeof app.listen>>;
  try {
    running = await app.listen(opts.port, opts.host);
  } catch (err) {
    await store.close();
    lock.release();
    const code = (err as NodeJS.ErrnoException).code;
    if (err instanceof service.SweepRefusedError) throw new CliError(err.message);
    if (code === 'EADDRINUSE') throw portInUse(opts.port, opts.host);
    throw err;
  }
  await markMoved(io, dataDir, store);
  // Only once the start-up checks passed and the port is ours: a serve that stops there leaves
  // no admin token behind that nobody was shown. Until then no token exists, so nothing answers
  // but 401; replicas starting at once on an empty database still make one admin (the store's).
  // Should that or the profile fail (the database gone, the config unwritable), the server that
  // listens already is stopped with it, not left running behind the error.
  let baseUrl: string;
  try {
    baseUrl = await announce(opts.host, running.port, store, dataDir, deps);
  } catch (err) {
    await app.close();
    await store.close();
    lock.release();
    throw err;
  }
  // Announced last, after the profile is saved: whoever waits for this line can use it.
  lock.describeOwner(baseUrl);
  note(io, `roster service listening on ${baseUrl} (${whereItKeeps(store, dataDir)})`);
  await untilStopped(io, () => app.close(), store, lock);
}

type Config = Parameters<Service['createApp']>[0]['config'];

/** serve's flags (and environment) as the app's config; a malformed flag is a usage error. */
function serverConfig(opts: ServeOptions, env: Deps['env'], service: Service) {
  let rateLimit: number | undefined;
  try {
    rateLimit = opts.rateLimit === undefined ? undefined : service.parseRateLimit(opts.rateLimit);
  } catch (err) {
    throw usageError(`--rate-limit: ${(err as Error).message}`);
  }
  const publicUrl = opts.publicUrl === undefined ? undefined : parsePublicUrl(opts.publicUrl);
  let webhooksAllow: ReturnType<Service['parseAllowList']> | undefined;
  try {
    webhooksAllow =
      opts.webhooksAllow === undefined ? undefined : service.parseAllowList(opts.webhooksAllow);
  } catch (err) {
    // parseAllowList's message already names --webhooks-allow and the bad entry.
    throw usageError((err as Error).message);
  }
  const ms = (seconds: number | undefined) => (seconds === undefined ? undefined : seconds * 1000);
  return {
    dataDir: dataDirOf(opts.data, env),
    vendor: opts.vendor,
    likePlatform: opts.likePlatform,
    rateLimit,
    maxUploadBytes: opts.maxUploadSize ?? service.DEFAULT_MAX_UPLOAD_BYTES,
    cdnUrl: opts.cdnUrl,
    cdnTokenOnly: opts.cdnTokenOnly,
    publicUrl,
    forceSweep: opts.forceSweep,
    sweepGraceMs: ms(opts.sweepGrace),
    eventsRetentionDays: opts.eventsRetention,
    quotaBytes: opts.quota,
    stripMetadata: opts.stripMetadata,
    smtpUrl: opts.smtpUrl ?? env.ROSTER_SMTP_URL,
    bodyTimeoutMs: ms(opts.bodyTimeout),
    accessLog: opts.accessLog,
    keepAliveTimeoutMs: ms(opts.keepAliveTimeout),
    maxConnectionsPerClient: opts.maxConnectionsPerClient,
    drainDelayMs: ms(opts.drainDelay),
    metricsToken: opts.metricsToken ?? (env.ROSTER_METRICS_TOKEN || undefined),
    webhooksAllow,
    webhooksAllowHttp: opts.webhooksAllowHttp,
    webhooksProxy: proxyFromEnv(env),
  } satisfies Config;
}

/**
 * The data dir's lock, then the port, then the store: before anything is created or swept, is
 * this data dir ours and is the port free? The lock is released again if what follows fails.
 */
async function openGuarded(opts: ServeOptions, deps: Deps, service: Service, dataDir: string) {
  const lock = takeLock(dataDir, service);
  try {
    await checkPortFree(opts.port, opts.host);
    const store = await openLocalStore(
      { data: opts.data, database: opts.database, blobs: opts.blobs },
      deps,
      {
        poolSize: opts.dbPoolSize,
        // An upgrade of a large database may take a minute: say what is happening meanwhile.
        onMigration: (line) => note(deps.io, line),
        statementTimeoutMs:
          opts.dbStatementTimeout === undefined ? undefined : opts.dbStatementTimeout * 1000,
        // On SQLite, two searches at once each on a core of their own, and none of them holding
        // up the other requests (store/sqlite/search-threads.ts).
        searchThreads: 2,
        onSearchTrouble: (line) => note(deps.io, `warning: ${line}`),
      },
    );
    return { lock, store };
  } catch (err) {
    lock.release();
    throw err;
  }
}

/** Makes the first admin on an empty store, then saves and prints the profile. */
async function announce(host: string, port: number, store: Store, dataDir: string, deps: Deps) {
  const created = await store.bootstrap();
  const baseUrl = localBaseUrl(host, port);
  const config = await openConfig(deps.env);
  const profile = await saveServeProfile(config, {
    dataDir,
    baseUrl,
    port,
    newToken: created?.adminToken,
    authenticates: async (token) => (await store.tokens.authenticate(token)) !== undefined,
  });
  announceProfile(deps.io, profile, {
    configPath: config.path,
    created: created !== undefined,
    create: store.policy.sharedDatabase
      ? 'ROSTER_DATABASE_URL=<the same URL> roster tokens create'
      : `roster tokens create --data ${dataDir}`,
    baseUrl,
  });
  return baseUrl;
}

/** Where the data and the media are: the data dir, a database, an object store. */
function whereItKeeps(store: Store, dataDir: string): string {
  return [
    store.policy.sharedDatabase ? `database: ${store.location}` : `data: ${dataDir}`,
    store.blobs.shared ? `media: ${store.blobs.location}` : '',
    store.policy.sharedDatabase && !store.blobs.shared ? `files: ${dataDir}` : '',
  ]
    .filter(Boolean)
    .join(', ');
}

/** Serves until SIGINT/SIGTERM, then drains, closes the store and releases the data dir. */
function untilStopped(
  io: Deps['io'],
  closeApp: () => Promise<unknown>,
  store: Store,
  lock: { release(): void },
): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      note(io, `${signal}: finishing in-flight requests…`);
      closeApp()
        .then(() => store.close())
        .then(() => {
          lock.release();
          note(io, 'stopped');
          resolve();
        })
        .catch(resolve);
    };
    // The first SIGINT/SIGTERM drains; a second one ends the process at once (signals.ts).
    onInterrupt(stop);
  });
}

/**
 * Served from a database copied from this data dir: the data dir is marked as moved, so that
 * its stale SQLite is not served or administered again without a word (local-store.ts). A mark
 * that cannot be written is a warning: the service itself is fine.
 */
async function markMoved(io: Deps['io'], dataDir: string, store: Store) {
  const { markIfMoved, MOVED_FILE } = await import('../../../../store/data-dir/moved.js');
  try {
    if (await markIfMoved(dataDir, store)) {
      note(io, `this data dir's SQLite was copied here: marked as moved (${MOVED_FILE})`);
    }
  } catch (err) {
    note(
      io,
      `warning: could not mark ${dataDir} as moved to the database: ${(err as Error).message}`,
    );
  }
}

/** What serve did with the CLI profiles, on stderr. */
function announceProfile(
  io: Deps['io'],
  profile: ServeProfileResult,
  at: { configPath: string; created: boolean; create: string; baseUrl: string },
) {
  if (profile.action === 'absent') {
    // The token is made where the data is: the data dir, or the database (its URL is the
    // operator's to give again; it is never printed with its password).
    note(io, 'no CLI profile holds a token for this data dir: create a token with');
    note(io, `  ${at.create}   and   roster login --base-url ${at.baseUrl}`);
    return;
  }
  const use = profile.name === DEFAULT_PROFILE ? '' : ` --profile ${profile.name}`;
  if (profile.action === 'saved') {
    if (at.created) note(io, `created the default tenant, branch 'main' and an admin token;`);
    if (profile.displaced) {
      const owner = profile.displaced.dataDir ?? 'another server';
      note(io, `CLI profile '${profile.displaced.name}' belongs to ${owner}: left as it is;`);
    }
    note(
      io,
      `saved ${at.created ? 'it' : 'a token'} as CLI profile '${profile.name}' in ${at.configPath}`,
    );
    note(io, `next: roster${use} users list`);
  } else if (use) {
    note(
      io,
      `CLI profile '${profile.name}' (this data dir's) points here: roster${use} users list`,
    );
  }
}
