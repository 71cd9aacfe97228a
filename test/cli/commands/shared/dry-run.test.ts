/**
 * `--dry-run` on the verbs that change things: what would change, computed from the current
 * record, nothing written, exit 0. In-process against a real server.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliServed, startCliServed } from '../../../helpers/cli-run.js';

let srv: CliServed;
let ann: string;
let bob: string;
beforeAll(async () => {
  srv = await startCliServed();
  const make = async (email: string, extra: string[]) => {
    const r = await srv.run(['users', 'invite', '--email', email, '--no-send-mail', ...extra]);
    expect(r.exitCode, r.stderr).toBe(0);
    return JSON.parse(r.stdout).id as string;
  };
  ann = await make('ann@example.com', ['--secret', 'long-enough-1', '--set', 'position=CEO']);
  bob = await make('bob@example.com', ['--secret', 'long-enough-2']);
});
afterAll(async () => {
  await srv?.close();
});

const show = async (id: string) => JSON.parse((await srv.run(['users', 'show', id])).stdout);

describe('users update --dry-run', () => {
  it('gives each field before → after from the current user and writes nothing', async () => {
    const before = await show(ann);
    const r = await srv.run([
      ...['users', 'update', ann, '--dry-run', '--set', 'position=CTO'],
      ...['--set', 'email=ann@example.com', '--unset', 'department'],
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      {
        id: ann,
        ok: true,
        action: 'update',
        changes: { 'profile.position': { from: 'CEO', to: 'CTO' } },
        error: null,
      },
    ]);
    expect(r.stderr).toMatch(/dry run.*nothing was changed/);
    expect(await show(ann)).toEqual(before);
  });

  it('a table names the change as before → after', async () => {
    const args = ['users', 'update', ann, '--dry-run', '-o', 'table', '--set', 'position=CTO'];
    const t = await srv.run(args);
    expect(t.exitCode, t.stderr).toBe(0);
    expect(t.stdout).toContain('profile.position: CEO → CTO');
  });

  it('works with ids from stdin; an unchanged user says so; a missing one fails (exit 5)', async () => {
    const r = await srv.run(['users', 'update', '-', '--dry-run', '--set', 'position=CEO'], {
      input: `${ann}\n${bob}\nnobody\n`,
    });
    expect(r.exitCode).toBe(5);
    const rows = JSON.parse(r.stdout);
    expect(rows.map((x: { action: string }) => x.action)).toEqual(['unchanged', 'update', null]);
    expect(rows[1].changes).toEqual({ 'profile.position': { from: null, to: 'CEO' } });
    expect((await show(bob)).profile.position).toBeNull();
  });
});

describe('activate, deactivate, remove --dry-run', () => {
  it('deactivate: status from → to; already deactivated is unchanged; nothing written', async () => {
    const r = await srv.run(['users', 'deactivate', ann, bob, '--dry-run']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)[0]).toMatchObject({
      action: 'deactivate',
      changes: { status: { from: 'activated', to: 'deactivated' } },
    });
    expect((await show(ann)).status).toBe('activated');
    const again = await srv.run(['users', 'activate', ann, '--dry-run']);
    expect(JSON.parse(again.stdout)[0]).toMatchObject({ action: 'unchanged' });
  });

  it('remove: no --yes needed, nothing removed', async () => {
    const r = await srv.run(['users', 'remove', '-', '--dry-run'], { input: `${bob}\n` });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)[0]).toMatchObject({ id: bob, ok: true, action: 'remove' });
    expect((await show(bob)).status).toBe('activated');
  });
});

describe('media delete --dry-run', () => {
  it('names what would be deleted and deletes nothing', async () => {
    const file = join(srv.dataDir, 'keep.txt');
    writeFileSync(file, 'keep me\n');
    const up = await srv.run(['media', 'upload', file]);
    const id = JSON.parse(up.stdout)[0].id;
    const r = await srv.run(['media', 'delete', id, '--dry-run']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)[0]).toMatchObject({ id, ok: true, action: 'delete' });
    expect((await srv.run(['media', 'show', id])).exitCode).toBe(0);
  });
});
