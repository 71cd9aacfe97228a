import { describe, expect, test } from 'vitest';
import { freshBatch, freshRead } from '../../src/store/postgres/fresh-read.js';

/** A read whose answers the test gives by hand, in the order the reads were sent. */
function controlledRead() {
  const sent: { resolve: (v: number) => void; reject: (e: Error) => void }[] = [];
  const read = () =>
    new Promise<number>((resolve, reject) => {
      sent.push({ resolve, reject });
    });
  return { read, sent };
}
const settle = () => new Promise((r) => setImmediate(r));

describe('freshRead', () => {
  test('a caller with no read on its way sends one and gets its value', async () => {
    const { read, sent } = controlledRead();
    const get = freshRead(read);
    const a = get();
    expect(sent).toHaveLength(1);
    sent[0]!.resolve(1);
    expect(await a).toBe(1);
  });

  test('callers who ask while a read is out share the next one, sent once that is back', async () => {
    const { read, sent } = controlledRead();
    const get = freshRead(read);
    const first = get();
    const later = [get(), get(), get()];
    expect(sent).toHaveLength(1); // nothing more is sent while the first read is out
    sent[0]!.resolve(1);
    expect(await first).toBe(1);
    await settle();
    expect(sent).toHaveLength(2);
    // Asked while the second read is out: they wait for a third.
    const latest = get();
    sent[1]!.resolve(2);
    expect(await Promise.all(later)).toEqual([2, 2, 2]);
    await settle();
    expect(sent).toHaveLength(3);
    sent[2]!.resolve(3);
    expect(await latest).toBe(3);
  });

  test('a failed read fails its callers only; the next callers get a new read', async () => {
    const { read, sent } = controlledRead();
    const get = freshRead(read);
    const a = get();
    const b = get();
    sent[0]!.reject(new Error('database unavailable'));
    await expect(a).rejects.toThrow('database unavailable');
    await settle();
    sent[1]!.resolve(7);
    expect(await b).toBe(7);
    const c = get();
    await settle();
    expect(sent).toHaveLength(3);
    sent[2]!.resolve(8);
    expect(await c).toBe(8);
  });
});

describe('freshBatch', () => {
  test('keys asked while a read is out go together in the next read, each caller getting its own value', async () => {
    const reads: { keys: string[]; resolve: (v: string[]) => void }[] = [];
    const get = freshBatch<string, string>(
      (keys) => new Promise((resolve) => reads.push({ keys, resolve })),
    );
    const a = get('a');
    const rest = [get('b'), get('c'), get('b')];
    expect(reads.map((r) => r.keys)).toEqual([['a']]);
    reads[0]!.resolve(['A']);
    expect(await a).toBe('A');
    await settle();
    expect(reads.map((r) => r.keys)).toEqual([['a'], ['b', 'c', 'b']]);
    reads[1]!.resolve(['B', 'C', 'B2']);
    expect(await Promise.all(rest)).toEqual(['B', 'C', 'B2']);
  });
});
