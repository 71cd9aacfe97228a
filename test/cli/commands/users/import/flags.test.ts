import { describe, expect, it } from 'vitest';
import {
  parseConcurrency,
  parseDelimiter,
  parseEncoding,
  parseHeaderRow,
  parseMaxDeactivate,
} from '../../../../../src/cli/commands/users/import/flags.js';
import { parseStatuses } from '../../../../../src/cli/parse.js';
import type { Plan } from '../../../../../src/import/plan.js';
import type { KnownUser } from '../../../../../src/import/snapshot.js';
import { allowed, syncRefusal } from '../../../../../src/import/sync.js';

describe('flag parsers', () => {
  it('--delimiter', () => {
    expect(parseDelimiter(';')).toBe(';');
    expect(parseDelimiter('tab')).toBe('\t');
    expect(parseDelimiter('\\t')).toBe('\t');
    expect(() => parseDelimiter(';;')).toThrow(/one character/);
    expect(() => parseDelimiter('"')).toThrow(/one character/);
  });

  it('--header-row: a row number as Excel shows it', () => {
    expect(parseHeaderRow('4')).toBe(4);
    expect(parseHeaderRow('1048576')).toBe(1_048_576);
    for (const bad of ['0', '-1', '1.5', 'four', '1048577']) {
      expect(() => parseHeaderRow(bad)).toThrow(/row number from 1 to 1048576/);
    }
  });

  it('--encoding', () => {
    expect(parseEncoding('windows-1252')).toBe('windows-1252');
    expect(() => parseEncoding('ebcdic-martian')).toThrow(/unknown encoding/);
  });

  it('--max-deactivate', () => {
    expect(parseMaxDeactivate('25')).toEqual({ count: 25 });
    expect(parseMaxDeactivate('0')).toEqual({ count: 0 });
    expect(parseMaxDeactivate('12.5%')).toEqual({ percent: 12.5 });
    for (const bad of ['1.5', '101%', '-1', 'ten'])
      expect(() => parseMaxDeactivate(bad)).toThrow(/count such as 25/);
  });

  it('--status and --concurrency', () => {
    expect(parseStatuses('all')).toEqual(['activated', 'pending', 'deactivated']);
    expect(parseStatuses('pending, activated')).toEqual(['pending', 'activated']);
    expect(() => parseStatuses('deleted')).toThrow(/expected activated/);
    expect(parseConcurrency('8')).toBe(8);
    expect(() => parseConcurrency('65')).toThrow(/1 to 64/);
  });
});

describe('--sync limit', () => {
  const planWith = (deactivate: number, active: number) =>
    ({
      file: 'p.csv',
      deactivate: Array.from({ length: deactivate }, () => ({}) as KnownUser),
      counts: { deactivate: 0 },
      statusColumns: [],
      active,
    }) as unknown as Plan;

  it('counts and percentages of the active users', () => {
    expect(allowed({ percent: 10 }, 95)).toBe(9);
    expect(allowed({ count: 3 }, 95)).toBe(3);
  });

  it('refuses beyond the limit with the numbers and a way out', () => {
    expect(syncRefusal(planWith(10, 100), { percent: 10 })).toBeUndefined();
    const refusal = syncRefusal(planWith(11, 100), { percent: 10 });
    expect(refusal?.message).toMatch(
      /would deactivate 11 users \(11\.0% of 100\), more than --max-deactivate 10% allows \(10\); nothing was changed.*--max-deactivate 11%/,
    );
    expect(refusal?.kind).toBe('failed');
    expect(syncRefusal(planWith(4, 100), { count: 3 })?.message).toMatch(/--max-deactivate 4\)?$/);
  });
});
