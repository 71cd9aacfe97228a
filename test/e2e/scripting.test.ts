/**
 * The scripting verbs as a shell user types them (README "Everyday use", the scripting block):
 * the built CLI spawned through bash with `roster` on PATH, against a real server. The rules
 * themselves are tested in-process (test/cli/commands/shared, users/show-email, api, media).
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliServed, startCliServed } from '../helpers/cli-run.js';
import { BIN } from '../helpers/e2e.js';

let srv: CliServed;
let cwd: string;
let shimDir: string;
beforeAll(async () => {
  srv = await startCliServed();
  cwd = join(srv.dataDir, 'work');
  shimDir = join(srv.dataDir, 'bin');
  mkdirSync(join(cwd, 'photos'), { recursive: true });
  mkdirSync(shimDir);
  writeFileSync(join(shimDir, 'roster'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(shimDir, 'roster'), 0o755);
  const jpeg = { create: { width: 4, height: 4, channels: 3, background: '#0f0' } } as const;
  await sharp(jpeg)
    .jpeg()
    .toFile(join(cwd, 'photos', 'team.jpg'));
  for (const [x, email] of [
    ['emp-1042', 'ann@example.com'],
    ['emp-1043', 'bob@example.com'],
  ]) {
    const r = await srv.run([
      ...['users', 'invite', '--email', email!, '--external-id', x!],
      ...['--secret', 'long-enough-1', '--no-send-mail'],
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
  }
});
afterAll(async () => {
  await srv?.close();
});

/** One line of shell, as typed. */
const sh = (line: string) =>
  execa('bash', ['-o', 'pipefail', '-c', line], {
    cwd,
    env: { ...srv.env, HOME: cwd, PATH: `${shimDir}:${process.env.PATH}`, NO_COLOR: '1' },
    extendEnv: false,
    input: '',
    reject: false,
    timeout: 20_000,
  });

/** The README's scripting block, line by line (comments included: bash drops them). */
const readmeLines = () => {
  const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
  const block = /Scripting, as with gh[^\n]*\n\n```sh\n([\s\S]*?)```/.exec(readme)![1]!;
  return block.trim().split('\n');
};

describe('scripting verbs, spawned', () => {
  it("the README's lines run as written (exit 0)", async () => {
    const lines = readmeLines();
    expect(lines.length).toBeGreaterThanOrEqual(8);
    for (const line of lines) {
      // `-o ids` comes with the output layer's formats; its pipe is the same as the one below.
      if (line.includes('-o ids')) continue;
      const r = await sh(line);
      expect(r.exitCode, `${line}\n${r.stderr}`).toBe(0);
    }
  }, 180_000);

  it('ids piped in: remove - --yes removes each; a re-run of the upload uploads nothing', async () => {
    const dry = await sh('printf "emp-1043\\n\\n" | roster users remove - --dry-run -o json');
    expect(JSON.parse(dry.stdout)[0]).toMatchObject({ id: 'emp-1043', action: 'remove' });
    const r = await sh('printf "emp-1043\\n" | roster users remove - --yes -o json');
    expect(r.exitCode, r.stderr).toBe(0);
    expect((await sh('roster users show emp-1043')).exitCode).toBe(4);
    const again = await sh("roster media upload --skip-existing 'photos/*.jpg' -o json");
    expect(again.exitCode, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual([]);
    expect((await sh('roster api https://example.com/api/users')).exitCode).toBe(2);
  }, 120_000);
});
