import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../../../src/cli/main.js';
import { fakeIO, testDeps } from '../../helpers.js';

async function script(shell: string) {
  const fake = fakeIO();
  expect(await run(['node', 'roster', 'completion', shell], testDeps(fake))).toBe(0);
  return fake.out();
}

/** Runs the bash completion function for a command line; returns the candidates. */
function complete(bash: string, words: string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'roster-completion-'));
  try {
    const file = join(dir, 'roster.bash');
    writeFileSync(file, bash);
    const line = `complete() { :; }; source ${file}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _roster; printf '%s\\n' "\${COMPREPLY[@]}"`;
    return execFileSync('bash', ['-c', line], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('roster completion', () => {
  it('bash: valid syntax, completes commands, verbs, flags and choices from the tree', async () => {
    const bash = await script('bash');
    execFileSync('bash', ['-n'], { input: bash });
    expect(complete(bash, ['roster', ''])).toEqual(
      expect.arrayContaining(['users', 'check', 'login', 'serve']),
    );
    expect(complete(bash, ['roster', 'users', ''])).toEqual(
      expect.arrayContaining([
        'list',
        'show',
        'invite',
        'update',
        'activate',
        'deactivate',
        'remove',
      ]),
    );
    expect(complete(bash, ['roster', '--profile', 'users', 'users', 'li'])).toEqual(['list']);
    expect(complete(bash, ['roster', 'users', 'list', '--st'])).toEqual(['--status']);
    expect(complete(bash, ['roster', 'users', 'list', '--ou'])).toEqual(['--output']);
    expect(complete(bash, ['roster', '-o', ''])).toEqual([
      'table',
      'json',
      'ndjson',
      'csv',
      'yaml',
      'wide',
      'ids',
    ]);
    expect(complete(bash, ['roster', 'users', 'list', '--no-h'])).toEqual(['--no-headers']);
    expect(complete(bash, ['roster', 'media', 'upload', '--fi'])).toEqual(['--fields']);
    expect(complete(bash, ['roster', 'completion', '--he'])).toEqual(['--help']);
    // Values of flags whose parser checks them (not commander choices) complete too.
    expect(complete(bash, ['roster', 'users', 'list', '--status', ''])).toEqual([
      'activated',
      'pending',
      'deactivated',
      'all',
    ]);
    expect(complete(bash, ['roster', 'users', 'invite', '--role', 'ed'])).toEqual(['editor']);
    expect(complete(bash, ['roster', 'users', 'import', '--match', ''])).toEqual([
      'externalId',
      'email',
    ]);
    expect(complete(bash, ['roster', 'users', 'import', '--encoding', 'win'])).toEqual([
      'windows-1252',
    ]);
  });

  it('zsh and fish: scripts generated from the same tree', async () => {
    const zsh = await script('zsh');
    expect(zsh).toMatch(/^#compdef roster/);
    expect(zsh).toContain("'users') reply=('list:list users");
    expect(zsh).toContain('compdef _roster roster');
    const fish = await script('fish');
    expect(fish).toMatch(
      /complete -c roster -n '__fish_seen_subcommand_from users; and not __fish_seen_subcommand_from list show invite update activate deactivate remove[a-z ]*' -a list/,
    );
    expect(fish).toContain(
      "complete -c roster -s o -l output -x -a 'table json ndjson csv yaml wide ids'",
    );
    expect(fish).toContain('-l no-headers');
    expect(fish).toContain(
      "-n '__fish_seen_subcommand_from users; and __fish_seen_subcommand_from invite' -l email -r -F",
    );
  });

  it('knows the verbs and flags users reach for: api, -X, --dry-run, --skip-existing, --type', async () => {
    const bash = await script('bash');
    expect(complete(bash, ['roster', 'a'])).toEqual(expect.arrayContaining(['api']));
    expect(complete(bash, ['roster', 'api', '-X', ''])).toEqual([
      ...['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS'],
    ]);
    expect(complete(bash, ['roster', 'api', '--in'])).toEqual(['--input']);
    for (const verb of [
      ['users', 'update'],
      ['users', 'activate'],
      ['users', 'deactivate'],
    ]) {
      expect(complete(bash, ['roster', ...verb, '--dr'])).toEqual(['--dry-run']);
    }
    expect(complete(bash, ['roster', 'users', 'remove', '--dr'])).toEqual(['--dry-run']);
    expect(complete(bash, ['roster', 'media', 'delete', '--dr'])).toEqual(['--dry-run']);
    expect(complete(bash, ['roster', 'media', 'upload', '--sk'])).toEqual(['--skip-existing']);
    expect(complete(bash, ['roster', 'media', 'list', '--type', ''])).toEqual([
      ...['image', 'video', 'pdf', 'raw'],
    ]);
    expect(complete(bash, ['roster', 'media', 'list', '--qu'])).toEqual(['--query']);
    const fish = await script('fish');
    expect(fish).toContain('skip-existing');
    expect(fish).toMatch(/api/);
  });

  it('an unknown shell is a usage error', async () => {
    const fake = fakeIO();
    expect(await run(['node', 'roster', 'completion', 'tcsh'], testDeps(fake))).toBe(2);
    expect(fake.err()).toContain('bash, zsh, fish');
  });
});
