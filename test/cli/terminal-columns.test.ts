/**
 * How wide a table may be: what the terminal reports, else `COLUMNS` (a pty that reports no
 * size: CI runners, `docker exec -t`), never when stdout is not a terminal (#44 rough edge).
 */
import { expect, test } from 'vitest';
import { terminalColumns } from '../../src/cli/context.js';

test.each([
  ['the terminal reports 120', true, 120, {}, 120],
  [
    'the terminal reports 120, COLUMNS says 60: the terminal wins',
    true,
    120,
    { COLUMNS: '60' },
    120,
  ],
  ['a pty that reports 0, COLUMNS=100', true, 0, { COLUMNS: '100' }, 100],
  ['a pty that reports nothing, COLUMNS=72', true, undefined, { COLUMNS: '72' }, 72],
  ['a pty that reports nothing, no COLUMNS: unfitted', true, 0, {}, undefined],
  ['COLUMNS that is no width', true, 0, { COLUMNS: 'wide' }, undefined],
  ['COLUMNS=0', true, 0, { COLUMNS: '0' }, undefined],
  ['piped: never fitted, whatever COLUMNS says', false, undefined, { COLUMNS: '80' }, undefined],
] as const)('%s', (_, isTTY, reported, env, expected) => {
  expect(terminalColumns(isTTY, reported, env)).toBe(expected);
});
