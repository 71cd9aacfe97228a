/**
 * What a one-shot command loads: the CLI bundle and nothing else of ours or of node_modules, no
 * ES module (Node's ESM loader never starts), none of Node's HTTP/2, TLS or child processes, and
 * of undici only its Pool and request API, not its index (fetch, WebSocket, cache, mocks: most
 * of a command's start-up time before), nor its proxy agent unless a proxy is set. Timing
 * itself lives in bench/startup.bench.mjs.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BIN, type Served, serve } from '../helpers/e2e.js';
import { scratch } from '../helpers/scratch.js';

const dirs = scratch();

const BUNDLE = join(BIN, '..', '..', 'dist', 'cli', 'roster.cjs');

let srv: Served;
const dir = dirs.temp('roster-load-');
beforeAll(async () => {
  srv = await serve();
});
afterAll(async () => {
  await srv.close();
  await dirs.cleanup();
});

/** The CommonJS files and Node's own modules a command loaded, as listed at its exit. */
async function loaded(
  args: string[],
  script: string[] = [BIN],
): Promise<{ files: string[]; builtins: string[] }> {
  const out = join(dir, `${[...script, ...args].join('-').replace(/[/\\]/g, '_')}.json`);
  const preload = join(dir, 'record.cjs');
  writeFileSync(
    preload,
    `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify({ files: Object.keys(require.cache), builtins: process.moduleLoadList })));`,
  );
  const r = await execa(process.execPath, ['--require', preload, ...script, ...args], {
    env: { ...srv.env, PATH: process.env.PATH, NO_COLOR: '1' },
    extendEnv: false,
    reject: false,
  });
  expect(r.exitCode, String(r.stderr)).toBe(0);
  return JSON.parse(readFileSync(out, 'utf8'));
}

it('users list loads bin/roster.js and the bundle only, no ES module, no http2', async () => {
  // With a search, a sort and a status filter too: checking them loaded zod (a third of the
  // command's start-up) before the rules were plain code.
  const { files, builtins } = await loaded([
    'users',
    'list',
    '--limit',
    '1',
    '--query',
    'ann',
    '--sort',
    'lastName_DESC',
    '--status',
    'all',
    '-o',
    'json',
  ]);
  expect(files.filter((f) => f !== join(dir, 'record.cjs'))).toEqual([BIN, BUNDLE]);
  // Nothing of Node's ESM loader beyond what bare node loads (Node 20: none; Node 24 loads
  // part of it at every start).
  const bare = new Set((await loaded([], ['-e', '0'])).builtins);
  expect(builtins.filter((m) => m.includes('modules/esm/') && !bare.has(m))).toEqual([]);
  // Node modules a plain-HTTP command has no use for (scripts/bundle-cli.mjs: LAZY).
  expect(
    builtins.filter((m) => /^NativeModule (http2|tls|child_process|perf_hooks)$/.test(m)),
  ).toEqual([]);
});

it('the bundle holds undici’s Pool and request API, not its index, no service code, no .xlsx libraries', () => {
  // The bundle's source map names every file in it.
  const { sources } = JSON.parse(readFileSync(`${BUNDLE}.map`, 'utf8')) as { sources: string[] };
  const bundled = sources.map((f) => f.replaceAll('\\', '/'));
  expect(bundled.some((f) => f.endsWith('undici/lib/dispatcher/pool.js'))).toBe(true);
  expect(
    bundled.filter((f) =>
      /undici\/(index\.js|lib\/mock\/|lib\/cache\/|lib\/web\/(websocket|fetch\/index))/.test(f),
    ),
  ).toEqual([]);
  expect(
    bundled.filter((f) => /(src|dist)\/(server|store)\/|\/(koa|pg|sharp|better-sqlite3)\//.test(f)),
  ).toEqual([]);
  // The .xlsx libraries are required when an import or export runs (scripts/bundle-cli.mjs),
  // told by the bundle's code, not its map: saxes' own source map names its file src/saxes.ts.
  const code = readFileSync(BUNDLE, 'utf8');
  expect(code).not.toContain('disallowed character in closing tag'); // one of saxes' messages
  expect(code).toContain('require("saxes")');
  expect(code).toContain('import("exceljs")');
});

/**
 * The bundled modules whose bodies ran in one command, by V8's precise coverage
 * (NODE_V8_COVERAGE): esbuild wraps each bundled module in a function named after its path.
 */
async function ranModules(args: string[], env: Record<string, string> = {}): Promise<string[]> {
  const cov = mkdtempSync(join(dir, 'cov-'));
  const r = await execa(process.execPath, [BIN, ...args], {
    env: { ...srv.env, ...env, PATH: process.env.PATH, NO_COLOR: '1', NODE_V8_COVERAGE: cov },
    extendEnv: false,
    reject: false,
  });
  expect(r.exitCode, String(r.stderr)).toBe(0);
  const ran: string[] = [];
  for (const file of readdirSync(cov)) {
    const { result } = JSON.parse(readFileSync(join(cov, file), 'utf8')) as {
      result: {
        url: string;
        functions: { functionName: string; ranges: { count: number }[] }[];
      }[];
    };
    for (const script of result.filter((s) => s.url.endsWith('/roster.cjs'))) {
      for (const f of script.functions) {
        if (/\.[cm]?js$/.test(f.functionName) && f.ranges[0]!.count > 0) ran.push(f.functionName);
      }
    }
  }
  return ran;
}

it('undici’s proxy agent is in the bundle but runs only when a proxy variable is set', async () => {
  const PROXY_MODULES =
    /undici\/lib\/dispatcher\/(env-http-proxy-agent|proxy-agent)\.js$|client\/undici-proxy\.js$/;
  const args = ['users', 'list', '--limit', '1', '-o', 'json'];
  const plain = await ranModules(args);
  expect(plain.some((m) => m.endsWith('undici/lib/dispatcher/pool.js'))).toBe(true);
  expect(plain.filter((m) => PROXY_MODULES.test(m))).toEqual([]);
  // NO_PROXY alone is no proxy; an HTTPS_PROXY loads the agent (this http:// URL still goes
  // directly, as no HTTP_PROXY is set).
  expect((await ranModules(args, { NO_PROXY: '*' })).filter((m) => PROXY_MODULES.test(m))).toEqual(
    [],
  );
  const proxied = await ranModules(args, { HTTPS_PROXY: 'http://127.0.0.1:9' });
  expect(proxied.filter((m) => PROXY_MODULES.test(m))).toHaveLength(3);
});
