import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ALL } from '../../../../src/cli/commands/index.js';
import { buildProgram, run } from '../../../../src/cli/main.js';
import { OUTPUT_CHOICES } from '../../../../src/cli/output/render.js';
import { scratch } from '../../../helpers/scratch.js';
import { fakeIO, testDeps } from '../../helpers.js';

const dirs = scratch();
afterAll(dirs.cleanup);

async function script(shell: string) {
  const fake = fakeIO();
  expect(await run(['node', 'roster', 'completion', shell], testDeps(fake))).toBe(0);
  return fake.out();
}

/**
 * Runs the bash completion function for each command line, all in one bash; returns each line's
 * candidates. (A bash per line took 25–28 s of CI's Node 20 run, ~1 s per process started from a
 * worker that had run many files; one bash takes well under a second.)
 */
function completeAll(bash: string, lines: string[][]): string[][] {
  const dir = dirs.temp('roster-completion-');
  const file = join(dir, 'roster.bash');
  writeFileSync(file, bash);
  const quote = (w: string) => `'${w}'`;
  const runs = lines.map(
    (words) =>
      `COMP_WORDS=(${words.map(quote).join(' ')}); COMP_CWORD=${words.length - 1}; COMPREPLY=(); _roster; printf '%s\\n' "\${COMPREPLY[@]}"; echo '\u0001'`,
  );
  const script = `complete() { :; }; source ${file}; ${runs.join('; ')}`;
  const out = execFileSync('bash', ['-c', script], { encoding: 'utf8' });
  return out
    .split('\u0001\n')
    .slice(0, lines.length)
    .map((part) => part.split('\n').filter(Boolean));
}

/** The verbs of `group`, as the command registry registers them. */
async function verbsOf(group: string): Promise<string[]> {
  const program = await buildProgram(testDeps(fakeIO()));
  const verbs = program.commands.find((c) => c.name() === group)?.commands.map((c) => c.name());
  if (!verbs?.length) throw new Error(`no verbs registered under ${group}`);
  return verbs;
}

/** A command line, and what completing its last word offers: exactly this, or at least this. */
type Case = [words: string[], offers: string[], atLeast?: 'at least'];

function expectCompletions(bash: string, cases: Case[]) {
  const results = completeAll(
    bash,
    cases.map(([words]) => words),
  );
  cases.forEach(([words, offers, atLeast], i) => {
    const expected = atLeast ? expect.arrayContaining(offers) : offers;
    expect(results[i], words.join(' ')).toEqual(expected);
  });
}

describe('roster completion', () => {
  it('bash: valid syntax, completes commands, verbs, flags and choices from the tree', async () => {
    const bash = await script('bash');
    execFileSync('bash', ['-n'], { input: bash });
    expectCompletions(bash, [
      [['roster', ''], ALL],
      [['roster', 'users', ''], await verbsOf('users')],
      [['roster', 'media', ''], await verbsOf('media')],
      [['roster', '--profile', 'users', 'users', 'li'], ['list']],
      [['roster', 'users', 'list', '--st'], ['--status']],
      [['roster', 'users', 'list', '--ou'], ['--output']],
      [['roster', '-o', ''], [...OUTPUT_CHOICES]],
      [['roster', 'users', 'list', '--no-h'], ['--no-headers']],
      [['roster', 'media', 'upload', '--fi'], ['--fields']],
      [['roster', 'completion', '--he'], ['--help']],
      [['roster', 'webhooks', ''], ['listen'], 'at least'],
      [['roster', 'webhooks', 'listen', '--se'], ['--secret']],
      // Values of flags whose parser checks them (not commander choices) complete too.
      [
        ['roster', 'users', 'list', '--status', ''],
        ['activated', 'pending', 'deactivated', 'all'],
      ],
      [['roster', 'users', 'invite', '--role', 'ed'], ['editor']],
      [
        ['roster', 'users', 'import', '--match', ''],
        ['externalId', 'email'],
      ],
      [['roster', 'users', 'import', '--encoding', 'win'], ['windows-1252']],
    ]);
  });

  it('zsh and fish: scripts generated from the same tree', async () => {
    const zsh = await script('zsh');
    expect(zsh).toMatch(/^#compdef roster/);
    expect(zsh).toContain("'users') reply=('list:list users");
    expect(zsh).toContain('compdef _roster roster');
    const fish = await script('fish');
    const users = (await verbsOf('users')).join(' ');
    expect(fish).toContain(
      `complete -c roster -n '__fish_seen_subcommand_from users; and not __fish_seen_subcommand_from ${users}' -a list`,
    );
    expect(fish).toContain(`complete -c roster -s o -l output -x -a '${OUTPUT_CHOICES.join(' ')}'`);
    expect(fish).toContain('-l no-headers');
    expect(fish).toContain(
      "-n '__fish_seen_subcommand_from users; and __fish_seen_subcommand_from invite' -l email -r -F",
    );
  });

  it('knows the verbs and flags users reach for: api, -X, --dry-run, --skip-existing, --type', async () => {
    const bash = await script('bash');
    expectCompletions(bash, [
      [['roster', 'a'], ['api'], 'at least'],
      [
        ['roster', 'api', '-X', ''],
        ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      ],
      [['roster', 'api', '--in'], ['--input']],
      ...['update', 'activate', 'deactivate', 'remove'].map(
        (verb): Case => [['roster', 'users', verb, '--dr'], ['--dry-run']],
      ),
      [['roster', 'media', 'delete', '--dr'], ['--dry-run']],
      [['roster', 'media', 'upload', '--sk'], ['--skip-existing']],
      [
        ['roster', 'media', 'list', '--type', ''],
        ['image', 'video', 'pdf', 'raw'],
      ],
      [['roster', 'media', 'list', '--qu'], ['--query']],
    ]);
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
