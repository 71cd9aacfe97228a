import { describe, expect, test } from 'vitest';
import { VIEW_COLUMNS, viewOf } from '../../src/store/types.js';

describe('viewOf', () => {
  test('names every value by its column, in VIEW_COLUMNS order', () => {
    const values = VIEW_COLUMNS.map((column) => `value of ${column}`);
    expect(viewOf(values)).toEqual(
      Object.fromEntries(VIEW_COLUMNS.map((column) => [column, `value of ${column}`])),
    );
  });
});
