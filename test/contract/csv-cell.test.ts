import { expect, test } from 'vitest';
import { fromCsvCell, toCsvCell } from '../../src/contract/csv-cell.js';

test.each([
  ['=SUM(A1:A9)', "'=SUM(A1:A9)"],
  ['@cmd', "'@cmd"],
  ['+cmd|calc', "'+cmd|calc"],
  ['-2+3+cmd', "'-2+3+cmd"],
  ['\tx', "'\tx"],
  ['\rx', "'\rx"],
  ["'already quoted", "''already quoted"],
])('a formula-like cell %j is written as %j', (value, cell) => {
  expect(toCsvCell(value)).toBe(cell);
  expect(fromCsvCell(cell)).toBe(value);
});

test.each([
  '+49 89 1234-0',
  '-42',
  '+1.5',
  '-0.25e3',
  '+1 (555) 010-9999',
  'Ann',
  'ann@example.com',
  '',
])('a number, a phone or plain text %j stays as it is', (value) => {
  expect(toCsvCell(value)).toBe(value);
  expect(fromCsvCell(value)).toBe(value);
});
