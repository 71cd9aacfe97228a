/** avatar sync's summary and verdict count in the singular where the count is one. */
import { describe, expect, it } from 'vitest';
import {
  type PhotoSyncResult,
  photoSummary,
  photoVerdict,
  type SyncRow,
} from '../../../../../src/cli/commands/users/avatar/photo-sync.js';
import { count } from '../../../../../src/cli/output/count.js';

const who = { user: 'u1', email: 'ann@example.com', externalId: null };
const row = (result: SyncRow['result']): SyncRow => ({ ...who, photo: 'ann.jpg', result });
const result = (n: number, rows: SyncRow[]): PhotoSyncResult => ({
  rows,
  unmatched: Array.from({ length: n }, (_, i) => `p${i}.jpg`),
  ambiguous: Array.from({ length: n }, (_, i) => [`a${i}.jpg`, `a${i}.png`]),
  withoutPhoto: Array.from({ length: n }, () => who),
  keeping: Array.from({ length: n }, () => who),
  notStarted: 0,
});

describe('avatar sync summary: singular and plural', () => {
  it('one of each', () => {
    expect(photoSummary(result(1, [row('set')]), false)).toBe(
      '1 set, 0 unchanged, 0 failed, 1 photo matched nobody, 1 name with more than one photo, 1 user without a photo, 1 user with no photo in this folder (they keep their current one)',
    );
  });

  it('two of each', () => {
    expect(photoSummary(result(2, [row('set')]), false)).toBe(
      '1 set, 0 unchanged, 0 failed, 2 photos matched nobody, 2 names with more than one photo, 2 users without a photo, 2 users with no photo in this folder (they keep their current one)',
    );
  });

  it('the verdict of one failed photo, and of one of two', () => {
    expect((photoVerdict(result(0, [row('failed')])) as Error).message).toBe(
      'the photo could not be set',
    );
    expect((photoVerdict(result(0, [row('failed'), row('set')])) as Error).message).toBe(
      '1 of 2 photos failed',
    );
    expect((photoVerdict(result(0, [row('failed'), row('failed')])) as Error).message).toBe(
      'none of the 2 photos could be set',
    );
  });

  it('count: the noun for one, the plural (given or +s) otherwise', () => {
    expect(count(0, 'photo')).toBe('0 photos');
    expect(count(1, 'photo')).toBe('1 photo');
    expect(count(1, 'name is', 'names are')).toBe('1 name is');
    expect(count(3, 'name is', 'names are')).toBe('3 names are');
  });
});
