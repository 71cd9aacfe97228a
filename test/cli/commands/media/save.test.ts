import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { saveStream, targetPath } from '../../../../src/cli/commands/media/save.js';
import { scratch } from '../../../helpers/scratch.js';

const dirs = scratch();

let dir: string;
beforeEach(() => {
  dir = dirs.temp('roster-save-');
  mkdirSync(join(dir, 'out'));
  writeFileSync(join(dir, 'taken.png'), 'old');
});
afterEach(dirs.cleanup);

describe('targetPath', () => {
  it('the name here, a file path, or the name inside a directory', async () => {
    expect(await targetPath(undefined, 'a.png')).toBe('a.png');
    expect(await targetPath(join(dir, 'x.png'), 'a.png')).toBe(join(dir, 'x.png'));
    expect(await targetPath(join(dir, 'out'), 'a.png')).toBe(join(dir, 'out', 'a.png'));
    expect(await targetPath(`${join(dir, 'out')}/`, 'a.png')).toBe(join(dir, 'out', 'a.png'));
  });

  it('refuses an existing file unless --force (exit 2), a directory, a missing directory', async () => {
    const taken = join(dir, 'taken.png');
    const err = await targetPath(taken, 'a.png').catch((e) => e);
    expect(err.exitCode).toBe(2);
    expect(err.message).toBe(
      `${taken} already exists; pass --force to overwrite it, or --to another path`,
    );
    expect(await targetPath(taken, 'a.png', true)).toBe(taken);
    expect(await targetPath(dir, 'taken.png').catch((e) => e.message)).toContain('already exists');
    await expect(targetPath(join(dir, 'nope/'), 'a.png')).rejects.toThrow('does not exist');
    await expect(targetPath(join(dir, 'nope', 'a.png'), 'x')).rejects.toThrow(
      `the directory ${join(dir, 'nope')} does not exist`,
    );
    await expect(targetPath(dir, 'out')).rejects.toThrow('is a directory');
  });
});

describe('saveStream', () => {
  const save = (target: string, chunks: (string | Error)[], opts = {}) =>
    saveStream(
      async () =>
        Readable.from(
          (async function* () {
            for (const c of chunks) {
              if (c instanceof Error) throw c;
              yield Buffer.from(c);
            }
          })(),
        ),
      target,
      opts,
      () => {},
    );

  it('writes through a temp file and reports progress', async () => {
    const seen: number[] = [];
    const target = join(dir, 'new.txt');
    expect(
      await save(target, ['ab', 'cde'], {
        expectedBytes: 5,
        onProgress: (n: number) => seen.push(n),
      }),
    ).toBe(5);
    expect(readFileSync(target, 'utf8')).toBe('abcde');
    expect(seen).toEqual([2, 5]);
    expect(readdirSync(dir).sort()).toEqual(['new.txt', 'out', 'taken.png']);
  });

  it('a failing or short download leaves nothing behind', async () => {
    const target = join(dir, 'new.txt');
    await expect(save(target, ['ab', new Error('connection reset')])).rejects.toThrow('reset');
    await expect(save(target, ['ab'], { expectedBytes: 5 })).rejects.toThrow(
      'ended after 2 of 5 bytes',
    );
    expect(readdirSync(dir).sort()).toEqual(['out', 'taken.png']);
  });

  it('never clobbers a file that appeared meanwhile, unless forced', async () => {
    const taken = join(dir, 'taken.png');
    await expect(save(taken, ['new'])).rejects.toThrow('already exists');
    expect(readFileSync(taken, 'utf8')).toBe('old');
    await save(taken, ['new'], { force: true });
    expect(readFileSync(taken, 'utf8')).toBe('new');
    expect(readdirSync(dir).sort()).toEqual(['out', 'taken.png']);
  });
});
