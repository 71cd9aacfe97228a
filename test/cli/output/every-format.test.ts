/**
 * Every command that prints, in every format `-o` offers: each output reads back as the format
 * asked for (test/helpers/format-readers.ts), and the structured ones agree. The formats come
 * from the formatter registry, the commands from the program's own tree: a new command must
 * have a case here or say why it prints no `-o` output, and a new format is tried everywhere.
 * In-process, against a real server (helpers/cli-run.ts).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli/main.js';
import { FORMATS, type Format, formatterOf } from '../../../src/cli/output/formats/index.js';
import { OUTPUT_CHOICES } from '../../../src/cli/output/render.js';
import { type CliServed, startCliServed } from '../../helpers/cli-run.js';
import { READERS } from '../../helpers/format-readers.js';
import { scratch } from '../../helpers/scratch.js';
import { fakeIO, testDeps } from '../helpers.js';

/** A command line; `{f}` is the format's name (fresh names per format), `{dir}` the files. */
interface Case {
  args: string[];
  /** Lists things with ids: `-o ids` is offered. */
  ids?: boolean;
  /** Changes nothing and prints nothing that varies: every structured format holds the same. */
  same?: boolean;
}

const CASES: Record<string, Case> = {
  'users list': { args: ['users', 'list', '--sort', 'email_ASC'], ids: true, same: true },
  'users show': { args: ['users', 'show', 'ann@example.com'], same: true },
  'users invite': {
    args: ['users', 'invite', '--no-send-mail', '--role', 'editor', '--email', '{f}@example.com'],
  },
  'users update': { args: ['users', 'update', 'ann@example.com', '--set', 'profile.position={f}'] },
  'users deactivate': { args: ['users', 'deactivate', 'bob@example.com', '--yes'] },
  'users activate': { args: ['users', 'activate', 'bob@example.com', '--yes'] },
  'users remove': { args: ['users', 'remove', '{f}@example.com', '--yes'] },
  'users import': {
    args: ['users', 'import', '{dir}/plan.csv', '--dry-run', '--no-send-mail', '--match', 'email'],
    same: true,
  },
  'users history': { args: ['users', 'history', 'ann@example.com'] },
  'users avatar set': { args: ['users', 'avatar', 'set', 'ann@example.com', '{dir}/ann.png'] },
  'users avatar show': { args: ['users', 'avatar', 'show', 'ann@example.com'] },
  'users avatar remove': { args: ['users', 'avatar', 'remove', 'ann@example.com', '--yes'] },
  'users avatar sync': { args: ['users', 'avatar', 'sync', '{dir}/photos', '--dry-run'] },
  'media upload': { args: ['media', 'upload', '{dir}/notes.txt'] },
  'media list': { args: ['media', 'list', '--all'], ids: true },
  'media show': { args: ['media', 'show', '{medium}'], same: true },
  'media delete': { args: ['media', 'delete', '{medium}', '--dry-run'] },
  'events list': { args: ['events', 'list', '--all', '--type', 'user.created'] },
  check: { args: ['check'] },
  'auth status': { args: ['auth', 'status'], same: true },
  whoami: { args: ['whoami'], same: true },
  'profiles list': { args: ['profiles', 'list'], same: true },
  'tokens list': { args: ['tokens', 'list'], same: true },
  'tenants list': { args: ['tenants', 'list'], same: true },
  'branches list': { args: ['branches', 'list'], same: true },
  // Before add and update change what they list and show.
  'webhooks list': { args: ['webhooks', 'list'], same: true },
  'webhooks show': { args: ['webhooks', 'show', '{webhook}'], same: true },
  'webhooks add': {
    args: ['webhooks', 'add', '--url', 'https://hooks.example.com/{f}', '--type', 'user.*'],
  },
  'webhooks update': { args: ['webhooks', 'update', '{webhook}', '--description', '{f}'] },
  'webhooks rotate-secret': { args: ['webhooks', 'rotate-secret', '{webhook}'] },
  'webhooks test': { args: ['webhooks', 'test', '{webhook}'] },
  'webhooks deliveries': { args: ['webhooks', 'deliveries', '{webhook}'] },
  'webhooks retry': { args: ['webhooks', 'retry', '{webhook}', '{delivery}'] },
};

/** Commands that print no `-o` output, and why. */
const NO_OUTPUT: Record<string, string> = {
  serve: 'runs the service',
  'tokens create': 'prints the token (--json for programs)',
  'tokens revoke': 'says what it did on stderr',
  'tenants add': 'says what it did',
  'tenants set': 'says what it did',
  'tenants quota': 'says what it did',
  'branches add': 'says what it did',
  backup: 'writes a file',
  copy: 'copies a database',
  login: 'saves a profile',
  logout: 'removes a token',
  'profiles use': 'saves the choice',
  'profiles cdn-auth': 'saves a setting',
  'profiles set': 'saves a setting',
  'users export': 'writes CSV, the columns an import reads, and refuses another -o',
  'media download': 'writes the file',
  'events tail': 'follows forever in lines or NDJSON (its own tests)',
  api: "prints the answer's JSON as it came",
  completion: 'prints a shell script',
  'webhooks remove': 'says what it did on stderr',
  'webhooks listen': "receives until stopped, in lines or a format's follows (its own tests)",
};

let srv: CliServed;
let medium: string;
const files = scratch();

beforeAll(async () => {
  srv = await startCliServed();
  const dir = files.temp('roster-every-format-');
  // Bob signed up (a secret): he can be deactivated and activated again.
  for (const [email, first, ...more] of [
    ['ann@example.com', 'Ann'],
    ['bob@example.com', 'Bob, Jr', '--secret', 'Correct-horse-9'],
  ]) {
    const r = await srv.run([
      ...['users', 'invite', '--no-send-mail', '--role', 'editor'],
      ...['--email', email!, '--first-name', first!, ...more],
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
  }
  writeFileSync(
    join(dir, 'plan.csv'),
    'email,firstName,role,locale\nann@example.com,Anna,editor,en_US\nnew@example.com,New,editor,en_US\n',
  );
  writeFileSync(join(dir, 'notes.txt'), 'text\n');
  const png = sharp({ create: { width: 64, height: 64, channels: 3, background: '#3c3' } }).png();
  await png.toFile(join(dir, 'ann.png'));
  const photos = files.temp('roster-every-format-photos-');
  await png.toFile(join(photos, 'bob@example.com.png'));
  const up = await srv.run(['-o', 'json', 'media', 'upload', join(dir, 'notes.txt')]);
  medium = JSON.parse(up.stdout)[0].id;
  // A name, not an address: the egress check takes it, and no receiver need answer.
  const hook = await srv.run([
    '-o',
    'json',
    'webhooks',
    'add',
    '--url',
    'https://hooks.example.com/in',
    '--type',
    'user.*',
  ]);
  const webhook: string = JSON.parse(hook.stdout).id;
  const delivery: string = JSON.parse(
    (await srv.run(['-o', 'json', 'webhooks', 'test', webhook])).stdout,
  ).id;
  for (const c of Object.values(CASES)) {
    c.args = c.args.map((a) =>
      a
        .replace('{dir}/photos', photos)
        .replace('{dir}', dir)
        .replace('{medium}', medium)
        .replace('{webhook}', webhook)
        .replace('{delivery}', delivery),
    );
  }
});
afterAll(async () => {
  await srv?.close();
  await files.cleanup();
});

async function leaves(): Promise<string[]> {
  const program = await buildProgram(testDeps(fakeIO()));
  const walk = (c: Command, path: string[]): string[] =>
    c.commands.length === 0
      ? [path.join(' ')]
      : c.commands.flatMap((sub) => walk(sub, [...path, sub.name()]));
  return walk(program, []);
}

it('every command of the tree has a case, or says why it prints no -o output', async () => {
  const all = await leaves();
  const missing = all.filter((c) => !Object.hasOwn(CASES, c) && !Object.hasOwn(NO_OUTPUT, c));
  expect(missing).toEqual([]);
  expect(Object.keys(CASES).filter((c) => !all.includes(c))).toEqual([]);
  expect(Object.keys(NO_OUTPUT).filter((c) => !all.includes(c) || Object.hasOwn(CASES, c))).toEqual(
    [],
  );
});

it('-o offers every format of the registry', () => {
  expect(OUTPUT_CHOICES).toEqual(expect.arrayContaining([...FORMATS]));
});

const runIn = (format: Format, c: Case) =>
  srv.run(['-o', format, ...c.args.map((a) => a.replace('{f}', `f-${format}`))]);

describe.each(Object.entries(CASES))('%s', (_name, c) => {
  it('prints each format as itself', async () => {
    const read = new Map<Format, unknown>();
    for (const format of FORMATS) {
      const r = await runIn(format, c);
      if (formatterOf(format).idsOnly && !c.ids) {
        expect(r.exitCode, `-o ${format}`).toBe(2);
        expect(r.stderr).toContain('prints one id per line');
        continue;
      }
      expect(r.exitCode, `-o ${format}: ${r.stderr}`).toBe(0);
      read.set(format, READERS[format](r.stdout));
    }
    if (c.same) {
      // The structured formats hold one value: YAML's is JSON's.
      expect(read.get('yaml')).toEqual(read.get('json'));
    }
    if (c.same && c.ids) {
      const json = read.get('json') as { id: string }[];
      expect(read.get('ids')).toEqual(json.map((row) => row.id));
      expect(read.get('ndjson')).toEqual(json);
    }
  });
});
