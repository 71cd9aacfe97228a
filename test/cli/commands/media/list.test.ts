import { describe, expect, it } from 'vitest';
import { register, runList } from '../../../../src/cli/commands/media/list.js';
import { fakeIO, page, parseWith, stubClient, testDeps } from '../../helpers.js';
import { medium, rawMedium } from './helpers.js';

describe('media list: flags → options', () => {
  it.each([
    [['media', 'list'], {}],
    [['media', 'list', '--limit', '5', '--offset', '10'], { limit: 5, offset: 10 }],
    [['-o', 'csv', 'media', 'list', '--all', '--fields', 'id'], { all: true, fields: 'id' }],
  ])('%j', async (argv, expected) => {
    expect(await parseWith(register, argv, 'media')).toMatchObject(expected);
  });

  it('rejects a bad --limit', async () => {
    await expect(parseWith(register, ['media', 'list', '--limit', '0'], 'media')).rejects.toThrow(
      /at least 1/,
    );
  });
});

describe('media list: run', () => {
  const two = [medium(), rawMedium('6b0000000000000000000002', 'notes.txt')];

  it('piped: a JSON array of media; paging goes to the client', async () => {
    const fake = fakeIO();
    const stub = stubClient({ listMedia: async () => page(two) });
    await runList({ limit: 2, offset: 4, globals: {} }, testDeps(fake, stub.client));
    expect(JSON.parse(fake.out())).toEqual(JSON.parse(JSON.stringify(two)));
    expect(stub.calls[0]!.args[0]).toEqual({ limit: 2, offset: 4 });
  });

  it('on a terminal: id, name, type, human size, dimensions, preview; a hint for more', async () => {
    const fake = fakeIO({ tty: true });
    const stub = stubClient({ listMedia: async () => page(two, 250) });
    await runList({ globals: {} }, testDeps(fake, stub.client));
    expect(fake.out()).toMatch(/│ id\s+│ name\s+│ type\s+│ size\s+│ dimensions\s+│ preview\s+│/);
    expect(fake.out()).toMatch(/│ photo\.png\s+│ image\s+│ 21\.6 KiB\s+│ 640x480\s+│ yes\s+│/);
    expect(fake.out()).toMatch(/│ notes\.txt\s+│ raw\s+│ 83 B\s+│\s+│ no\s+│/);
    expect(fake.err()).toContain('showing 1–2 of 250; --all for every page, or --offset 2');
  });

  it('an empty branch says how to add media', async () => {
    const fake = fakeIO({ tty: true });
    const stub = stubClient({ listMedia: async () => page([]) });
    await runList({ globals: {} }, testDeps(fake, stub.client));
    expect(fake.err()).toContain('no media yet');
  });

  it('--all follows every page; csv keeps exact bytes; --fields picks paths', async () => {
    const fake = fakeIO();
    const pages = [page([two[0]!], 2, 0, 1), page([two[1]!], 2, 1, 1)];
    const stub = stubClient({ listMedia: async () => pages.shift()! });
    await runList({ all: true, limit: 1, globals: { output: 'csv' } }, testDeps(fake, stub.client));
    expect(fake.out()).toBe(
      'id,name,type,bytes,dimensions,preview\n' +
        '6b0000000000000000000001,photo.png,image,22148,640x480,yes\n' +
        '6b0000000000000000000002,notes.txt,raw,83,,no\n',
    );
    expect(stub.calls.map((c) => c.args[0])).toEqual([
      { limit: 1, offset: 0 },
      { limit: 1, offset: 1 },
    ]);
    const picked = fakeIO();
    const one = stubClient({ listMedia: async () => page([two[0]!]) });
    await runList(
      { fields: 'id,resourceInfo.bytes', globals: { output: 'ndjson' } },
      testDeps(picked, one.client),
    );
    expect(JSON.parse(picked.out())).toEqual({
      id: '6b0000000000000000000001',
      resourceInfo: { bytes: 22148 },
    });
  });

  it('--fields must name medium fields (exit 2)', async () => {
    const err = await runList(
      { fields: 'email', globals: {} },
      testDeps(fakeIO(), stubClient({}).client),
    ).catch((e) => e);
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain("unknown field 'email'");
  });
});
