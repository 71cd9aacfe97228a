/**
 * The client says what went wrong; which command, flag or variable fixes it is the CLI's to
 * say (cli/advice.ts). This scans the client's code (not its comments) for the CLI's words.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, test } from 'vitest';

const CLIENT = resolve(import.meta.dirname, '..', '..', 'src', 'client');
/** `roster login`, `--profile`, `ROSTER_TOKEN`: a command, a long flag, a CLI variable. */
const CLI_WORDS =
  /`roster [a-z]|roster (?:login|tokens|profiles|auth)\b|\s--[a-z][a-z-]+|ROSTER_[A-Z]/;

test('no client message names a CLI command, flag or variable', () => {
  const found: string[] = [];
  for (const name of readdirSync(CLIENT).filter((n) => n.endsWith('.ts'))) {
    const lines = readFileSync(join(CLIENT, name), 'utf8').split('\n');
    lines.forEach((line, i) => {
      if (/^\s*(\*|\/\/|\/\*)/.test(line)) return;
      if (CLI_WORDS.test(line)) found.push(`${name}:${i + 1}: ${line.trim()}`);
    });
  }
  expect(found).toEqual([]);
});
