import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expandArgs,
  expandBraces,
  glob,
  hasMagic,
  segmentRegExp,
} from '../../../../src/cli/commands/media/glob.js';
import { scratch } from '../../../helpers/scratch.js';

const dirs = scratch();

let dir: string;
beforeAll(() => {
  dir = dirs.temp('roster-glob-');
  for (const f of [
    'a.png',
    'b.png',
    'c.jpg',
    '.hidden.png',
    'photos/x.png',
    'photos/2024/y.png',
    'photos/2024/z.JPG',
    'photos/.cache/w.png',
    'odd [1].png',
    'star*.png',
  ]) {
    mkdirSync(join(dir, f, '..'), { recursive: true });
    writeFileSync(join(dir, f), f);
  }
  mkdirSync(join(dir, 'dir.png'));
  symlinkSync(join(dir, 'photos'), join(dir, 'linked'));
});
afterAll(dirs.cleanup);

describe('pattern pieces', () => {
  it('hasMagic: wildcards, classes and braces, not escaped ones', () => {
    expect(['*.png', 'a?.png', '[ab].png', '{a,b}.png', 'x/**/y'].map(hasMagic)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['a.png', 'dir/file.txt', String.raw`star\*.png`].map(hasMagic)).toEqual([
      false,
      false,
      false,
    ]);
  });

  it('expandBraces: alternatives, nesting, several groups; a brace without comma stays', () => {
    expect(expandBraces('{a,b}.png')).toEqual(['a.png', 'b.png']);
    expect(expandBraces('x{1,2}{a,b}')).toEqual(['x1a', 'x1b', 'x2a', 'x2b']);
    expect(expandBraces('{a,{b,c}d}')).toEqual(['a', 'bd', 'cd']);
    expect(expandBraces('{a}.png')).toEqual(['{a}.png']);
    expect(expandBraces('no-brace')).toEqual(['no-brace']);
  });

  it('expandBraces: an unclosed or escaped brace stays; one without a comma keeps the groups inside it', () => {
    expect(expandBraces('{a,b')).toEqual(['{a,b']);
    expect(expandBraces('{a,b{c,d}')).toEqual(['{a,bc', '{a,bd']);
    expect(expandBraces('{a{b,c}}')).toEqual(['{ab}', '{ac}']);
    expect(expandBraces('x{}{a,b}')).toEqual(['x{}a', 'x{}b']);
    if (process.platform !== 'win32') {
      expect(expandBraces('\\{a,b}')).toEqual(['\\{a,b}']);
      expect(expandBraces('{a\\,b,c}')).toEqual(['a\\,b', 'c']);
    }
  });

  it('segmentRegExp: *, ?, classes, negation; a leading dot only when spelled', () => {
    const m = (p: string, name: string) => segmentRegExp(p).test(name);
    expect(m('*.png', 'a.png')).toBe(true);
    expect(m('*.png', 'a.png.txt')).toBe(false);
    expect(m('*.png', '.hidden.png')).toBe(false);
    expect(m('.*.png', '.hidden.png')).toBe(true);
    expect(m('?.png', 'ab.png')).toBe(false);
    expect(m('[a-b].png', 'b.png')).toBe(true);
    expect(m('[!a].png', 'a.png')).toBe(false);
    expect(m('[!a].png', 'c.png')).toBe(true);
    expect(m('a+(b).png', 'a+(b).png')).toBe(true);
  });
});

describe('glob', () => {
  it('matches files in a directory, sorted, not hidden ones, not directories', async () => {
    expect(await glob('*.png', dir)).toEqual(['a.png', 'b.png', 'odd [1].png', 'star*.png']);
  });

  it('** walks any depth (not into hidden or symlinked directories)', async () => {
    expect(await glob('**/*.png', dir)).toEqual([
      'a.png',
      'b.png',
      'odd [1].png',
      'star*.png',
      'photos/x.png',
      'photos/2024/y.png',
    ]);
    expect(await glob('photos/**', dir)).toEqual([
      'photos/x.png',
      'photos/2024/y.png',
      'photos/2024/z.JPG',
    ]);
  });

  it('braces, literal segments, symlinked directories named in the pattern', async () => {
    expect(await glob('{a,c}.*', dir)).toEqual(['a.png', 'c.jpg']);
    expect(await glob('photos/*/y.png', dir)).toEqual(['photos/2024/y.png']);
    expect(await glob('linked/*.png', dir)).toEqual(['linked/x.png']);
  });

  it('absolute patterns give absolute paths; ./ and ../ work', async () => {
    expect(await glob(join(dir, 'photos', '*.png'))).toEqual([join(dir, 'photos', 'x.png')]);
    expect(await glob('./photos/*.png', dir)).toEqual(['photos/x.png']);
    expect(await glob('../*.png', join(dir, 'photos'))).toEqual([
      '../a.png',
      '../b.png',
      '../odd [1].png',
      '../star*.png',
    ]);
  });

  it('escapes make a wildcard literal', async () => {
    expect(await glob(String.raw`star\*.png`, dir)).toEqual(['star*.png']);
    expect(await glob(String.raw`odd \[1\].png`, dir)).toEqual(['odd [1].png']);
  });

  it('nothing matches: an empty list (also under a missing directory)', async () => {
    expect(await glob('*.gif', dir)).toEqual([]);
    expect(await glob('nowhere/*.png', dir)).toEqual([]);
  });
});

describe('expandArgs', () => {
  it('plain paths stay (even missing ones), patterns expand, unmatched patterns are listed', async () => {
    const r = await expandArgs(['a.png', 'missing.png', '*.jpg', 'none-*.gif'], dir);
    expect(r.expansions).toEqual([
      { arg: 'a.png', paths: ['a.png'] },
      { arg: 'missing.png', paths: ['missing.png'] },
      { arg: '*.jpg', paths: ['c.jpg'] },
      { arg: 'none-*.gif', paths: [] },
    ]);
    expect(r.unmatched).toEqual(['none-*.gif']);
  });

  it('a file whose name looks like a pattern is taken as it is', async () => {
    const r = await expandArgs(['odd [1].png', 'star*.png'], dir);
    expect(r.expansions.map((e) => e.paths)).toEqual([['odd [1].png'], ['star*.png']]);
  });
});
