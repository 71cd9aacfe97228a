/**
 * What a one-shot command loads: undici's Pool and request API, not its index (fetch, WebSocket,
 * cache, mocks: most of a command's start-up time), and nothing of the service. Timing itself
 * lives in bench/startup.bench.mjs.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BIN, type Served, serve } from './helpers/cli.js';

let srv: Served;
const dir = mkdtempSync(join(tmpdir(), 'roster-load-'));
beforeAll(async () => {
  srv = await serve();
});
afterAll(async () => {
  await srv.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The CommonJS modules a command loaded, as node's require cache lists them at exit. */
async function loaded(args: string[]): Promise<string[]> {
  const out = join(dir, `${args.join('-')}.json`);
  const preload = join(dir, 'record.cjs');
  writeFileSync(
    preload,
    `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(Object.keys(require.cache))));`,
  );
  const r = await execa(process.execPath, ['--require', preload, BIN, ...args], {
    env: { ...srv.env, PATH: process.env.PATH, NO_COLOR: '1' },
    extendEnv: false,
    reject: false,
  });
  expect(r.exitCode, String(r.stderr)).toBe(0);
  return JSON.parse(readFileSync(out, 'utf8')) as string[];
}

it('users list loads undici’s pool and request API only, and no service code', async () => {
  const modules = await loaded(['users', 'list', '--limit', '1', '-o', 'json']);
  expect(modules.some((m) => m.endsWith('undici/lib/dispatcher/pool.js'))).toBe(true);
  expect(
    modules.filter((m) => /undici\/(index\.js|lib\/web\/|lib\/mock\/|lib\/cache\/)/.test(m)),
  ).toEqual([]);
  expect(modules.filter((m) => /better-sqlite3|\/koa\/|\/pg\/|sharp|pdfjs/.test(m))).toEqual([]);
});
