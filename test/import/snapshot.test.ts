import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DestinationError } from '../../src/files/destination.js';
import { hashKey, KeyIndex } from '../../src/import/key-index.js';
import { type KnownUser, pack, snapshotOf } from '../../src/import/snapshot.js';
import { SpilledRecords } from '../../src/import/spilled-records.js';
import { tmpdirPerTest } from '../helpers/scratch.js';

// The snapshot's temp files go to TMPDIR: each test gets its own, to see what is left there.
const dir = tmpdirPerTest('roster-snapshot-test-');

const texts = Array.from({ length: 500 }, (_, i) =>
  // Multi-byte text, the separators the packing uses, and an empty record.
  i % 50 === 0 ? '' : `${i}:Zoë Łukasz 李 \u0001\u0002 ${'x'.repeat(i % 37)}`,
);

describe('SpilledRecords', () => {
  it.each([
    ['in memory', 1 << 20],
    ['spilled to a file after a few records', 2000],
    ['spilled from the first record', 0],
  ])('gives back every record, by number and in order: %s', (_, memoryBytes) => {
    const records = new SpilledRecords(memoryBytes);
    const numbers = texts.map((t) => records.append(t));
    expect(numbers).toEqual(texts.map((_, i) => i));
    expect(records.spilled).toBe(memoryBytes < 1 << 20);
    expect([...records.all()]).toEqual(texts);
    for (const i of [0, 1, 77, 250, 499]) expect(records.get(i)).toBe(texts[i]);
    // Nothing in TMPDIR even while the file is in use: it was unlinked once open.
    expect(readdirSync(dir())).toEqual([]);
    records.close();
  });

  it('reads records larger than its block, and the held tail after the file', () => {
    const records = new SpilledRecords(10);
    const big = 'é'.repeat(700_000); // 1.4 MB: more than one write or read block
    const all = ['a', big, 'b', big.slice(1), 'c'];
    for (const t of all) records.append(t);
    expect([...records.all()]).toEqual(all);
    expect(records.get(1)).toBe(big);
    expect(records.get(4)).toBe('c');
    records.close();
  });

  it('a TMPDIR it cannot write is an error naming the place and what to do', () => {
    const notADir = join(dir(), 'file');
    writeFileSync(notADir, '');
    process.env.TMPDIR = join(notADir, 'tmp');
    const records = new SpilledRecords(4);
    let error: unknown;
    try {
      records.append('more than four bytes');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(DestinationError);
    expect((error as Error).message).toMatch(
      /cannot write .*roster-snapshot-.*a part of .* is not a directory .*set TMPDIR/,
    );
  });
});

describe('KeyIndex', () => {
  it('names every record added under a hash, the latest first, across growth', () => {
    const index = new KeyIndex();
    for (let n = 0; n < 5000; n++) index.add(n % 7 === 0 ? 42 : hashKey(`k${n}`), n);
    const at42 = index.candidates(42);
    expect(at42).toEqual(
      Array.from({ length: 715 }, (_, i) => (714 - i) * 7).filter((n) => n < 5000),
    );
    expect(index.candidates(hashKey('k5'))).toContain(5);
    expect(index.candidates(hashKey('absent'))).not.toContain(5);
  });
});

const user = (
  id: string,
  values: Record<string, string>,
  status: KnownUser['status'] = 'activated',
) => ({
  id,
  status,
  packed: pack(values),
});

describe.each([
  ['in memory', undefined],
  ['spilled', 0],
])('Snapshot (%s)', (_, memoryBytes) => {
  // Two emails whose keys share a 32-bit hash: a lookup compares the key, not only the hash.
  const [collideA, collideB] = ['e522789@example.com', 'e739192@example.com'];

  it('finds users by each unique key as the service compares them, and never by a colliding hash', () => {
    expect(hashKey(collideA)).toBe(hashKey(collideB));
    const snapshot = snapshotOf(
      [
        user('u1', { externalId: 'E-1', email: 'Zoë@Example.com', userName: 'zoe' }),
        user('u:2', { externalId: 'e-1', email: collideA }, 'deactivated'),
        user('u3', { externalId: 'E-3' }, 'pending'),
      ],
      memoryBytes,
    );
    expect(snapshot.holder('externalId', 'E-1')?.id).toBe('u1');
    // externalId is case-exact; email and userName are not; all compare in NFC.
    expect(snapshot.holder('externalId', 'e-1')?.id).toBe('u:2');
    expect(snapshot.holder('email', 'zoe\u0308@example.COM')?.id).toBe('u1');
    expect(snapshot.holder('userName', 'ZOE')).toMatchObject({ id: 'u1', status: 'activated' });
    expect(snapshot.holder('email', collideA)).toMatchObject({ id: 'u:2', status: 'deactivated' });
    expect(snapshot.holder('email', collideB)).toBeUndefined();
    expect(snapshot.holder('externalId', 'E-2')).toBeUndefined();
    expect(snapshot.size).toBe(3);
    expect(snapshot.active).toBe(2);
    expect([...snapshot.users()].map((u) => `${u.id} ${u.status}`)).toEqual([
      'u1 activated',
      'u:2 deactivated',
      'u3 pending',
    ]);
    snapshot.close();
  });

  it('a user met twice while paging is the later one', () => {
    const snapshot = snapshotOf(
      [
        user('u1', { externalId: 'E-1', email: 'old@example.com' }),
        user('u1', { externalId: 'E-1', email: 'new@example.com' }),
      ],
      memoryBytes,
    );
    expect(snapshot.holder('externalId', 'E-1')?.packed).toBe(
      pack({ externalId: 'E-1', email: 'new@example.com' }),
    );
    snapshot.close();
  });
});
