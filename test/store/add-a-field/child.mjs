// The built service and CLI with one profile field added (hooks.mjs), in one process: a real
// server on a loopback port over SQLite, and the CLI's run() against it. Prints what each step
// saw as one JSON object; test/store/add-a-field.test.ts judges it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';

import { loadSync } from './hooks.mjs';

// registerHooks where Node has it: register() is deprecated from Node 26 on (DEP0205).
if (nodeModule.registerHooks) nodeModule.registerHooks({ load: loadSync });
else nodeModule.register(new URL('./hooks.mjs', import.meta.url));
const dist = new URL('../../../dist/', import.meta.url);
const load = (path) => import(new URL(path, dist).href);
const { openStore, databaseTarget } = await load('store/open.js');
const { createApp } = await load('server/app.js');
const { DEFAULT_MAX_UPLOAD_BYTES } = await load('server/config.js');
const { run } = await load('cli/main.js');
const { default: Database } = await import('better-sqlite3');

const dir = mkdtempSync(join(tmpdir(), 'roster-add-a-field-'));
const seen = {};
try {
  const dataDir = join(dir, 'data');
  const store = await openStore({ dataDir, target: databaseTarget(undefined, dataDir) });
  const { adminToken } = await store.bootstrap();
  const app = await createApp({
    store,
    config: { dataDir, vendor: 'service', maxUploadBytes: DEFAULT_MAX_UPLOAD_BYTES },
    log: () => {},
  });
  const { url } = await app.listen(0);
  const env = {
    NO_COLOR: '1',
    ROSTER_BASE_URL: `${url}/api`,
    ROSTER_TOKEN: adminToken,
    ROSTER_CONFIG_DIR: join(dir, 'config'),
  };
  const roster = async (...args) => {
    const collect = () => {
      const stream = new PassThrough();
      const chunks = [];
      stream.on('data', (c) => chunks.push(c));
      return { stream, text: () => Buffer.concat(chunks).toString() };
    };
    const [out, err] = [collect(), collect()];
    const io = {
      ...{ stdout: out.stream, stderr: err.stream, stdin: Readable.from(['']) },
      ...{ stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false },
      ...{ color: false, stderrColor: false },
    };
    const code = await run(['node', 'roster', ...args], { io, env });
    return { code, stdout: out.text(), stderr: err.text() };
  };
  const api = async (
    method,
    path,
    body,
    type = 'application/vnd.service.accessors.user.v3+json',
  ) => {
    const res = await fetch(`${url}/api${path}`, {
      method,
      headers: {
        authorization: `Basic ${adminToken}`,
        accept: type,
        ...(body ? { 'content-type': type } : {}),
      },
      body: body && JSON.stringify(body),
    });
    return { status: res.status, json: await res.json() };
  };

  // The API: written and answered as a named field (a column), not as a custom field.
  const created = await api('POST', '/users', {
    externalId: 'E1',
    email: 'ada@example.com',
    profile: { firstName: 'Ada', costCenter: 'CC-100' },
    sendMail: false,
  });
  seen.apiCreate = { status: created.status, costCenter: created.json.profile?.costCenter };
  const db = new Database(join(dataDir, 'roster.db'), { readonly: true });
  seen.stored = db.prepare('SELECT cost_center, custom FROM users').get();
  db.close();
  const openapi = await (await fetch(`${url}/api/openapi.json`)).json();
  seen.openapiHasField = JSON.stringify(openapi).includes('"costCenter"');

  // The import: a header alias finds the field; the plan and the run change it.
  const csv = join(dir, 'people.csv');
  writeFileSync(csv, 'Personnel Number,Email,Kostenstelle\nE1,ada@example.com,CC-200\n');
  seen.importRun = await roster('users', 'import', csv, '--no-send-mail');
  seen.afterImport = (await api('GET', '/users/E1')).json.profile?.costCenter;
  seen.flat = (await api('GET', '/users/E1', undefined, 'application/json')).json.costCenter;

  // The export has the column, and importing the export again changes nothing.
  const exported = join(dir, 'export.csv');
  seen.exportRun = await roster('users', 'export', '--to', exported);
  seen.exportHeader = readFileSync(exported, 'utf8').split('\n')[0];
  seen.reimport = await roster('users', 'import', exported, '--dry-run', '-o', 'json');

  // --fields and --set know it by name.
  seen.setRun = await roster('users', 'update', 'E1', '--set', 'costCenter=CC-300');
  seen.list = await roster(
    'users',
    'list',
    '--fields',
    'externalId,profile.costCenter',
    '-o',
    'csv',
  );

  await app.close(1000);
  await store.close?.();
} catch (err) {
  seen.error = String(err?.stack ?? err);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.stdout.write(JSON.stringify(seen));
