import { expect, test } from 'vitest';
import { keysetRanges, orderTerms } from '../../../src/store/common/keyset.js';
import { sortColumns } from '../../../src/store/common/sort-columns.js';

const SQL = sortColumns({ firstName: 'first_name', lastName: 'last_name' });
/** Each range as its SQL, the bound values inlined. */
const rendered = (ranges: ReturnType<typeof keysetRanges>) =>
  ranges.map(({ range }) => range((v) => JSON.stringify(v)).join(' AND '));

test('no range after a position bounds a key that an earlier key holds equal (status leading, then as the tie-break)', () => {
  // Such a range is empty, but PostgreSQL's generic plan of it does not know that and read a
  // whole first-name group of 1,000,000 users for it.
  const terms = orderTerms(
    {
      sort: [
        { key: 'status', dir: 'DESC' },
        { key: 'firstName', dir: 'ASC' },
      ],
    },
    SQL,
  );
  const at = { keys: ['activated', 'Anna'], status: 'activated', rowid: 7 };
  expect(rendered(keysetRanges(terms, at))).toEqual([
    'status = "activated" AND first_name = "Anna" AND status = "activated" AND rowid > 7',
    'status = "activated" AND first_name > "Anna"',
    'status < "activated"',
  ]);
});

test('the ranges after a position with NULL keys: NULLs first going up, last going down', () => {
  const terms = orderTerms(
    {
      sort: [
        { key: 'email', dir: 'DESC' },
        { key: 'lastName', dir: 'ASC' },
      ],
    },
    SQL,
  );
  const ranges = keysetRanges(terms, { keys: ['a@x.io', null], status: 'pending', rowid: 3 });
  expect(rendered(ranges)).toEqual([
    'email_norm = "a@x.io" AND last_name IS NULL AND status = "pending" AND rowid > 3',
    'email_norm = "a@x.io" AND last_name IS NULL AND status > "pending"',
    'email_norm = "a@x.io" AND last_name IS NOT NULL',
    'email_norm < "a@x.io"',
    'email_norm IS NULL',
  ]);
  // Only the last holds the users without an email alone.
  expect(ranges.map((r) => r.leadIsNull)).toEqual([false, false, false, false, true]);
});
