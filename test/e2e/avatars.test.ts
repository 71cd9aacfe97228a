/**
 * The avatar journey with the built CLI spawned against a real server: a HEIC through the
 * bundle's lazy decoders, then a folder sync interrupted by Ctrl-C that leaves no orphan media.
 */
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makePhotos } from '../../fixtures/avatars/make.mjs';
import { type CliServed, startCliServed } from '../helpers/cli-run.js';
import { type Env, start } from '../helpers/e2e.js';
import { eventually } from '../helpers/eventually.js';

let srv: CliServed;
let paths: Awaited<ReturnType<typeof makePhotos>>['paths'];
const PEOPLE = 12;
beforeAll(async () => {
  [srv, { paths }] = await Promise.all([startCliServed(), makePhotos()]);
  for (let i = 0; i < PEOPLE; i++) {
    const r = await srv.run(['users', 'invite', '--email', `p${i}@example.com`, '--no-send-mail']);
    expect(r.exitCode, r.stderr).toBe(0);
  }
}, 60_000);
afterAll(async () => {
  await srv?.close();
});

/** The built CLI against this server (`srv.run` is the CLI in this process). */
const spawn = (args: string[], env: Env = {}) => start(args, { env: { ...srv.env, ...env } });

it('sets an avatar from a HEIC with the built CLI', async ({ skip }) => {
  if (!paths.heic) skip('heif-enc is not installed');
  const users = JSON.parse((await srv.run(['users', 'list', '--status', 'all'])).stdout);
  const p0 = users.find((u: { email: { value: string } }) => u.email.value === 'p0@example.com');
  const r = await spawn(['users', 'avatar', 'set', p0.id, paths.heic!, '-o', 'json']).done;
  expect(r.exitCode, r.stderr).toBe(0);
  expect(JSON.parse(r.stdout)).toMatchObject({ id: p0.id, result: 'set' });
});

it('Ctrl-C while a HEIC is decoded: exit 130, and nothing is left in TMPDIR', async ({ skip }) => {
  if (!paths.heic) skip('heif-enc is not installed');
  const tmp = mkdtempSync(join(srv.dataDir, 'tmpdir-'));
  const mark = join(srv.dataDir, 'decoding');
  // heif-convert stand-in: says it started, then waits until the test takes its mark away (or
  // the data dir goes): it must not outlive the test, the CLI that started it is killed.
  const decoder = join(srv.dataDir, 'slow-heif-convert');
  writeFileSync(
    decoder,
    `#!/bin/sh\ntouch "${mark}"\nwhile [ -e "${mark}" ]; do sleep 0.05; done\n`,
    {
      mode: 0o755,
    },
  );
  const users = JSON.parse((await srv.run(['users', 'list', '--status', 'all'])).stdout);
  const p1 = users.find((u: { email: { value: string } }) => u.email.value === 'p1@example.com');
  const child = spawn(['users', 'avatar', 'set', p1.id, paths.heic!], {
    TMPDIR: tmp,
    HEIF_CONVERT_PATH: decoder,
  });
  try {
    // Ours only: Node 26 keeps its compile cache under TMPDIR too.
    const ours = () => readdirSync(tmp).filter((name) => name.startsWith('roster-'));
    await eventually(() => existsSync(mark), 30_000);
    expect(ours()).toHaveLength(2); // the avatar's dir and the decoded photo's
    child.kill('SIGINT');
    const r = await child.done;
    expect(r.exitCode, r.stderr).toBe(130);
    expect(ours()).toEqual([]);
  } finally {
    rmSync(mark, { force: true });
  }
});

it("Ctrl-C during a sync: exit 130, and every avatar medium is some user's avatar", async () => {
  const dir = mkdtempSync(join(srv.dataDir, 'photos-'));
  for (let i = 1; i < PEOPLE; i++) copyFileSync(paths.phone, join(dir, `p${i}@example.com.jpg`));
  const child = spawn(['users', 'avatar', 'sync', dir, '--concurrency', '1']);
  await child.waitFor(/\bset \w+/);
  child.kill('SIGINT');
  const r = await child.done;
  expect(r.exitCode, r.stderr).toBe(130);
  expect(r.stderr).toContain('interrupted');

  const media = JSON.parse((await srv.run(['media', 'list', '--all', '-o', 'json'])).stdout);
  const users = JSON.parse(
    (await srv.run(['users', 'list', '--status', 'all', '-o', 'json'])).stdout,
  );
  const used = new Set<string>();
  for (const u of users)
    for (const image of Object.values(u.profile.avatar ?? {}) as { url: string }[])
      used.add(new URL(image.url).pathname);
  const orphans = media.filter(
    (m: { resourceInfo: { url: string } }) => !used.has(new URL(m.resourceInfo.url).pathname),
  );
  expect(orphans).toEqual([]);
  expect(used.size).toBeLessThan(3 * PEOPLE); // it really stopped early
});
