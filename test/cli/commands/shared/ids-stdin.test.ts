/**
 * `-` as the id: one id per line from standard input, for every verb that takes ids
 * (`roster users list -o ids | roster users remove - --yes`). In-process against a real server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliServed, startCliServed } from '../../../helpers/cli-run.js';

let srv: CliServed;
beforeAll(async () => {
  srv = await startCliServed();
});
afterAll(async () => {
  await srv?.close();
});

let n = 0;
async function invite(): Promise<string> {
  n++;
  const r = await srv.run([
    ...['users', 'invite', '--email', `stdin${n}@example.com`, '--no-send-mail'],
    ...['--secret', 'long-enough-1', '--external-id', `S-${n}`],
  ]);
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout).id;
}

async function upload(name: string): Promise<string> {
  const { writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const file = join(srv.dataDir, name);
  writeFileSync(file, `content of ${name}\n`);
  const r = await srv.run(['media', 'upload', file]);
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout)[0].id;
}

const status = async (id: string) =>
  JSON.parse((await srv.run(['users', 'show', id])).stdout).status;

describe('users: ids from standard input', () => {
  it('remove - --yes: every id on stdin; blank lines and CRLF endings are fine', async () => {
    const a = await invite();
    const b = await invite();
    const r = await srv.run(['users', 'remove', '-', '--yes'], { input: `${a}\r\n\n  \n${b}\n` });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      { id: a, ok: true, status: 'deleted', error: null },
      { id: b, ok: true, status: 'deleted', error: null },
    ]);
    expect((await srv.run(['users', 'show', a])).exitCode).toBe(4);
  });

  it('deactivate - and activate -: externalIds too', async () => {
    const a = await invite();
    const r = await srv.run(['users', 'deactivate', '-'], { input: `${a}\nS-${n}\n` });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await status(a)).toBe('deactivated');
    const back = await srv.run(['users', 'activate', '-'], { input: `${a}\n` });
    expect(back.exitCode, back.stderr).toBe(0);
    expect(await status(a)).toBe('activated');
  });

  it('a bad line fails on its own (exit 5); the others are done', async () => {
    const a = await invite();
    const r = await srv.run(['users', 'deactivate', '-'], { input: `${a}\nbad\u0007id\n` });
    expect(r.exitCode).toBe(5);
    const rows = JSON.parse(r.stdout);
    expect(rows[0]).toMatchObject({ id: a, ok: true });
    expect(rows[1]).toMatchObject({ ok: false, error: expect.stringMatching(/line 2.*not an id/) });
    expect(await status(a)).toBe('deactivated');
  });

  it('no ids on stdin: nothing to do, exit 0', async () => {
    const r = await srv.run(['users', 'remove', '-', '--yes'], { input: '\n' });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
  });

  it('- twice is a usage error', async () => {
    const r = await srv.run(['users', 'deactivate', '-', '-'], { input: 'x\n' });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/standard input/);
  });

  it('show -: the users found, as a list; a missing one fails on its own (exit 5)', async () => {
    const a = await invite();
    const b = await invite();
    const r = await srv.run(['users', 'show', '-'], { input: `${a}\nnobody-here\n${b}\n` });
    expect(r.exitCode).toBe(5);
    expect(JSON.parse(r.stdout).map((u: { id: string }) => u.id)).toEqual([a, b]);
    expect(r.stderr).toContain('nobody-here');
    const none = await srv.run(['users', 'show', '-'], { input: 'nobody-here\n' });
    expect(none.exitCode).toBe(4);
  });

  it('update -: the same change to every id', async () => {
    const a = await invite();
    const b = await invite();
    const r = await srv.run(['users', 'update', '-', '--set', 'position=CTO'], {
      input: `${a}\n${b}\n`,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).map((row: { ok: boolean }) => row.ok)).toEqual([true, true]);
    for (const id of [a, b]) {
      const u = JSON.parse((await srv.run(['users', 'show', id])).stdout);
      expect(u.profile.position).toBe('CTO');
    }
  });
});

describe('media: ids from standard input', () => {
  it('show - and delete - --yes', async () => {
    const a = await upload('a.txt');
    const b = await upload('b.txt');
    const shown = await srv.run(['media', 'show', '-'], { input: `${a}\n${b}\n` });
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout).map((m: { id: string }) => m.id)).toEqual([a, b]);
    const r = await srv.run(['media', 'delete', '-', '--yes'], { input: `${a}\n${b}\n` });
    expect(r.exitCode, r.stderr).toBe(0);
    expect((await srv.run(['media', 'show', a])).exitCode).toBe(4);
  });
});
