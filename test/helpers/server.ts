/** Starts a real app on a temp data dir, listening on a loopback port, for HTTP tests. */

import { request } from 'undici';
import { afterAll, onTestFinished } from 'vitest';
import { type Channel, SCOPES, type Scope } from '../../src/contract/scopes.js';
import { type App, createApp } from '../../src/server/app.js';
import { DEFAULT_MAX_UPLOAD_BYTES, type ServerConfig } from '../../src/server/config.js';
import type { Store } from '../../src/store/store.js';
import { TEST_AUDIT } from './audit.js';
import { openTestStore } from './database.js';
import { scratch } from './scratch.js';

export interface TestServer {
  url: string;
  dataDir: string;
  /** The PostgreSQL database this server uses, when the run is on PostgreSQL. */
  database?: string;
  /** The bucket (`s3://…`) holding its media, when the run is on S3. */
  blobs?: string;
  store: Store;
  /** The app itself (in-process servers only): for drain and close tests. */
  app?: App;
  adminToken: string;
  logs: string[];
  /**
   * A token on `branch` (created if missing) of `tenant` with the given scopes, for the given
   * channels (default: the REST API only, as `roster tokens create` makes them).
   */
  token(opts?: {
    scopes?: Scope[];
    branch?: string;
    tenant?: string;
    channels?: Channel[];
  }): Promise<string>;
  req(
    method: string,
    path: string,
    opts?: { headers?: Record<string, string>; body?: string | Buffer; token?: string | null },
  ): Promise<{ status: number; headers: Record<string, string>; text: string; json: any }>;
  close(): Promise<void>;
}

/** scrypt's cost in test servers (the stored hash names it: users-routes.suite checks). */
export const TEST_SECRET_HASH_COST = 1024;

export type StartServer = (config?: Partial<ServerConfig>) => Promise<TestServer>;

export async function startServer(
  config: Partial<ServerConfig> = {},
  tuning: Parameters<typeof openTestStore>[1] = {},
): Promise<TestServer> {
  const dirs = scratch();
  const dataDir = dirs.temp('roster-test-');
  const { store, database, blobs, dispose } = await openTestStore(dataDir, tuning);
  const adminToken = (await store.bootstrap())!.adminToken;
  const logs: string[] = [];
  const app = await createApp({
    store,
    config: {
      dataDir,
      vendor: 'service',
      maxUploadBytes: DEFAULT_MAX_UPLOAD_BYTES,
      accessLog: true,
      // The suites make hundreds of users with secrets: at the default cost each hash is ~50 ms
      // of a core (9 s of a run); test/server/users/secrets.test.ts holds the default.
      secretHashCost: TEST_SECRET_HASH_COST,
      ...config,
    },
    log: (line) => logs.push(line),
  });
  const { url } = await app.listen(0);

  const token: TestServer['token'] = async ({
    scopes = [...SCOPES],
    branch = 'main',
    tenant = '*',
    channels = ['api'] as Channel[],
  } = {}) => {
    const t = (await store.tenants.byHost(tenant)) ?? (await store.tenants.add(tenant));
    const b =
      (await store.branches.byName(t.id, branch)) ?? (await store.branches.add(t.id, branch));
    return (
      await store.tokens.create(b.id, `test-${scopes.join('+')}`, scopes, channels, TEST_AUDIT)
    ).secret;
  };

  return {
    url,
    dataDir,
    database,
    blobs,
    store,
    app,
    adminToken,
    logs,
    token,
    req: requester(url, adminToken),
    async close() {
      await app.close(1000);
      await dispose();
      await dirs.cleanup();
    },
  };
}

/**
 * A test server for the tests of a file: started as the file is loaded (`const s = await
 * serverForFile()` at its top level) and closed after its last test. Takes startServer's
 * arguments.
 */
export async function serverForFile(...args: Parameters<typeof startServer>): Promise<TestServer> {
  const server = await startServer(...args);
  afterAll(() => server.close());
  return server;
}

/**
 * A test server of the current test's own, closed when the test ends however it ends (what a
 * try/finally or a list closed in afterEach did in each file). Takes startServer's arguments.
 */
export async function serverForTest(...args: Parameters<typeof startServer>): Promise<TestServer> {
  const server = await startServer(...args);
  onTestFinished(() => server.close());
  return server;
}

/** A `req` function for a server at `url`, authenticating with `defaultToken` unless told. */
export function requester(url: string, defaultToken: string): TestServer['req'] {
  return async (method, path, { headers = {}, body, token: tok = defaultToken } = {}) => {
    const res = await request(`${url}${path}`, {
      method: method as 'GET',
      headers: { ...(tok === null ? {} : { authorization: `Basic ${tok}` }), ...headers },
      body,
    });
    const text = await res.body.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return {
      status: res.statusCode,
      headers: Object.fromEntries(
        Object.entries(res.headers).map(([k, v]) => [
          k,
          Array.isArray(v) ? v.join(', ') : String(v),
        ]),
      ),
      text,
      json,
    };
  };
}

export const V3 = 'application/vnd.service.accessors.user.v3+json';
export const V2 = 'application/vnd.service.accessors.user.v2+json';
export const USERS_V2 = 'application/vnd.service.accessors.users.v2+json';

export const jsonBody = (value: unknown, contentType = V3) => ({
  headers: { 'content-type': contentType, accept: V3 },
  body: JSON.stringify(value),
});
