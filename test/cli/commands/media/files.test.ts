import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkFile, localFileName } from '../../../../src/cli/commands/media/files.js';
import { scratch } from '../../../helpers/scratch.js';

const dirs = scratch();

let dir: string;
beforeAll(() => {
  dir = dirs.temp('roster-files-');
  writeFileSync(join(dir, 'a.txt'), 'hello');
  mkdirSync(join(dir, 'sub'));
});
afterAll(dirs.cleanup);

describe('checkFile', () => {
  it('a readable file: ok with its size', async () => {
    expect(await checkFile(join(dir, 'a.txt'))).toEqual({ ok: true, size: 5 });
  });

  it('missing, a directory, not a regular file', async () => {
    expect(await checkFile(join(dir, 'nope.txt'))).toEqual({ ok: false, problem: 'no such file' });
    expect(await checkFile(join(dir, 'a.txt', 'x'))).toEqual({
      ok: false,
      problem: 'no such file',
    });
    const sub = await checkFile(join(dir, 'sub'));
    expect(sub.ok).toBe(false);
    expect(!sub.ok && sub.problem).toContain(
      `is a directory; to upload the files in it, pass a quoted glob such as '${join(dir, 'sub')}/*'`,
    );
    expect(await checkFile('/dev/null')).toEqual({ ok: false, problem: 'not a regular file' });
  });

  it('unreadable (permission denied when opening)', async () => {
    const denied = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    const r = await checkFile(join(dir, 'a.txt'), async () => {
      throw denied;
    });
    expect(r).toEqual({ ok: false, problem: 'permission denied (not readable)' });
  });
});

describe('localFileName', () => {
  it.each([
    ['photo.png', 'photo.png'],
    ['../../etc/passwd', 'passwd'],
    ['C:\\Users\\x\\evil.exe', 'evil.exe'],
    ['.bashrc', 'bashrc'],
    ['..', 'medium-1'],
    ['a:b*c?.txt', 'a_b_c_.txt'],
    ['tab\there\u202egnp.exe', 'tabheregnp.exe'],
    ['CON.txt', '_CON.txt'],
    ['trailing. ', 'trailing'],
    ['   ', 'medium-1'],
  ])('%j → %j', (name, safe) => expect(localFileName(name, 'medium-1')).toBe(safe));

  it('cuts to 255 UTF-8 bytes, keeping the extension', () => {
    const name = localFileName(`${'ä'.repeat(300)}.jpeg`, 'x');
    expect(Buffer.byteLength(name)).toBeLessThanOrEqual(255);
    expect(name.endsWith('ä.jpeg')).toBe(true);
  });
});
