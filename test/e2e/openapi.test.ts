/**
 * The OpenAPI document as tools use it, from a real `roster serve`: @redocly/cli lints it with
 * its recommended rules (offline), and openapi-typescript's types of it compile in a typed
 * consumer (test/openapi/consumer.ts) that then lists, creates, updates, uploads and deletes.
 */
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type Served, serve } from '../helpers/e2e.js';
import { scratch } from '../helpers/scratch.js';

const ROOT = join(import.meta.dirname, '..', '..');
const bin = (pkg: string, path: string) => join(ROOT, 'node_modules', pkg, path);
// Nothing may leave the machine: telemetry and update checks off, any proxy-aware request
// sent to a closed port.
const OFFLINE = {
  REDOCLY_TELEMETRY: 'off',
  REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
  HTTPS_PROXY: 'http://127.0.0.1:9',
  HTTP_PROXY: 'http://127.0.0.1:9',
  NO_PROXY: '',
};

const tmp = scratch();
let s: Served;
let dir: string;
let docFile: string;

beforeAll(async () => {
  s = await serve();
  dir = tmp.temp('roster-openapi-');
  docFile = join(dir, 'openapi.json');
  const doc = await s.req('GET', '/api/openapi.json', { token: null });
  expect(doc.status).toBe(200);
  writeFileSync(docFile, doc.text);
});
afterAll(async () => {
  await s.close();
  await tmp.cleanup();
});

test('@redocly/cli lint with the recommended rules: no errors, no warnings', async () => {
  const r = await execa(
    process.execPath,
    [
      bin('@redocly/cli', 'bin/cli.js'),
      'lint',
      docFile,
      '--extends',
      'recommended',
      '--format',
      'json',
    ],
    { env: OFFLINE, reject: false },
  );
  const report = JSON.parse(r.stdout);
  const problems = report.problems.map((p: any) => `${p.severity} ${p.ruleId}: ${p.message}`);
  expect(problems).toEqual([]);
  expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  expect(r.exitCode).toBe(0);
});

// tsc over the generated types takes ~10 s here, more on a busy machine.
test('openapi-typescript types compile in a typed consumer that works against roster serve', {
  timeout: 120_000,
}, async () => {
  await execa(
    process.execPath,
    [bin('openapi-typescript', 'bin/cli.js'), docFile, '--output', join(dir, 'api.ts')],
    { env: OFFLINE },
  );
  copyFileSync(join(ROOT, 'test', 'openapi', 'consumer.ts'), join(dir, 'consumer.ts'));
  writeFileSync(join(dir, 'package.json'), '{"type": "module"}');
  const tsc = await execa(
    process.execPath,
    [
      bin('typescript', 'bin/tsc'),
      ...['--strict', '--noUncheckedIndexedAccess', '--skipLibCheck'],
      ...['--target', 'es2022', '--module', 'nodenext', '--outDir', join(dir, 'out')],
      ...['--types', 'node', '--typeRoots', join(ROOT, 'node_modules', '@types')],
      join(dir, 'consumer.ts'),
    ],
    { reject: false },
  );
  expect(tsc.stdout).toBe('');
  expect(tsc.exitCode).toBe(0);

  const png = join(dir, 'square.png');
  await sharp({ create: { width: 40, height: 30, channels: 3, background: '#3366cc' } })
    .png()
    .toFile(png);
  const run = await execa(process.execPath, [join(dir, 'out', 'consumer.js')], {
    env: { ROSTER_URL: s.url, ROSTER_TOKEN: s.adminToken, ROSTER_FILE: png },
    reject: false,
  });
  expect(run.stderr).toBe('');
  expect(JSON.parse(run.stdout)).toEqual({
    created: {
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      email: 'typed@example.com',
      status: 'pending',
    },
    updated: { position: 'CTO', role: null },
    listed: ['typed-1'],
    total: 1,
    medium: { type: 'image', width: 40, preview: true },
    deleted: [null, null],
  });
  // The deletes reached the server: the user and the medium are gone.
  expect((await s.req('GET', '/api/users/typed-1')).status).toBe(404);
  expect((await s.req('GET', '/api/media')).json.total).toBe(0);
});
