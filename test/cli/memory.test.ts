/**
 * v8.setFlagsFromString is unsupported by Node: a flag V8 drops is not an error, only a line on
 * stderr, which every command would then print. Each flag Roster sets must still be known to the
 * Node running this (CI runs it on each supported line).
 */
import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { V8_FLAGS } from '../../src/cli/memory.js';

it.each(Object.values(V8_FLAGS))('V8 on this Node knows %s', (flag) => {
  const r = spawnSync(
    process.execPath,
    ['-e', `require('node:v8').setFlagsFromString(${JSON.stringify(flag)})`],
    { encoding: 'utf8' },
  );
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
});

it('an unknown flag is reported on stderr (what the test above would see)', () => {
  const r = spawnSync(
    process.execPath,
    ['-e', `require('node:v8').setFlagsFromString('--no-such-flag-for-roster')`],
    { encoding: 'utf8' },
  );
  expect(r.stderr).toMatch(/unrecognized flag --no-such-flag-for-roster/);
});
