/**
 * `roster serve` in-process, where it fails after it listens (the profile cannot be saved): the
 * error is the command's, and the server, the store and the data dir's lock go with it, instead
 * of a process left answering behind its own error.
 */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { PROTO_ACCESSOR } from '../../../../src/server/harden.js';
import { lockDataDir } from '../../../../src/store/data-dir/lock.js';
import { cliWith } from '../../../helpers/cli-run.js';
import { watchPrototype } from '../../../helpers/prototype-watch.js';
import { scratch } from '../../../helpers/scratch.js';

const dirs = scratch();
afterEach(dirs.cleanup);
// A serve that got as far as listening took Object.prototype.__proto__ away (harden.ts): this
// worker runs other test files after this one, so each test gives it back. Another file's
// in-process serve may have taken it before this file began: each test starts with it there.
beforeEach(() => {
  if (!Object.getOwnPropertyDescriptor(Object.prototype, '__proto__')) {
    Object.defineProperty(Object.prototype, '__proto__', PROTO_ACCESSOR!);
  }
});
const proto = watchPrototype();
afterEach(() => proto.restore());

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

test('a profile that cannot be saved stops serve: one line, exit 1, the port and the data dir free', async () => {
  const data = dirs.temp('roster-serve-run-data-');
  const notADir = join(dirs.temp('roster-serve-run-'), 'config');
  writeFileSync(notADir, 'a file where the config dir should be');
  const port = await freePort();
  const r = await cliWith({ ROSTER_CONFIG_DIR: notADir })([
    ...['serve', '--port', String(port), '--data', data],
  ]);
  expect(r.code).toBe(1);
  expect(r.stderr.trim().split('\n').at(-1)).toMatch(/^error: .*config/);
  lockDataDir(data).release();
  const again = createServer();
  await new Promise<void>((resolve, reject) =>
    again.once('error', reject).listen(port, '127.0.0.1', resolve),
  );
  await new Promise((resolve) => again.close(resolve));
});

test('serve runs without Object.prototype.__proto__, as node --disable-proto=delete would (#46)', async () => {
  expect(Object.getOwnPropertyDescriptor(Object.prototype, '__proto__')).toBeDefined();
  const data = dirs.temp('roster-serve-run-data-');
  const notADir = join(dirs.temp('roster-serve-run-'), 'config');
  writeFileSync(notADir, 'a file where the config dir should be');
  // It listens, then stops at the profile: as far as a serve goes before it would serve.
  const r = await cliWith({ ROSTER_CONFIG_DIR: notADir })([
    ...['serve', '--port', String(await freePort()), '--data', data],
  ]);
  expect(r.code).toBe(1);
  expect(Object.getOwnPropertyDescriptor(Object.prototype, '__proto__')).toBeUndefined();
  // What that changes: a walker given `__proto__` finds no prototype to write into.
  const walked = JSON.parse('{}') as Record<string, Record<string, unknown> | undefined>;
  const key = '__proto__';
  expect(() => {
    walked[key]!.polluted = 'yes';
  }).toThrow(TypeError);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

test('a serve refused at start-up (data dir busy) leaves the accessor: nothing served', async () => {
  const data = dirs.temp('roster-serve-run-data-');
  const held = lockDataDir(data);
  try {
    const r = await cliWith({})(['serve', '--port', String(await freePort()), '--data', data]);
    expect(r.stderr).toContain('uses the data dir');
  } finally {
    held.release();
  }
  expect(Object.getOwnPropertyDescriptor(Object.prototype, '__proto__')).toBeDefined();
});
