/**
 * bin/roster, the command npm links: it finds bin/roster.js through npm's link, passes every
 * argument as given, and starts node with glibc's malloc held to 2 arenas unless the person set
 * MALLOC_ARENA_MAX. A stand-in `node` first in PATH prints what it was started with.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { scratch } from '../helpers/scratch.js';

const LAUNCHER = resolve('bin/roster');
const scope = scratch();
afterEach(scope.cleanup);

/** Runs `command` (the launcher or a link to it) with the stand-in node; what it printed. */
function launch(command: string, args: string[], env: Record<string, string> = {}) {
  const fake = scope.temp('roster-launcher-');
  writeFileSync(
    join(fake, 'node'),
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
    '#!/bin/sh\nprintf "%s\\n" "arena=${MALLOC_ARENA_MAX-unset}" "$@"\n',
  );
  chmodSync(join(fake, 'node'), 0o755);
  const out = execFileSync(command, args, {
    encoding: 'utf8',
    env: { PATH: `${fake}:/usr/bin:/bin`, ...env },
  });
  return out.trimEnd().split('\n');
}

describe('bin/roster', () => {
  it('starts bin/roster.js with every argument as given, and 2 malloc arenas', () => {
    const args = ['users', 'list', '--query', 'Anna Berlin', '', '*', '$HOME'];
    expect(launch(LAUNCHER, args)).toEqual(['arena=2', resolve('bin/roster.js'), ...args]);
  });

  it('follows the links npm makes (absolute and relative, chained) to the package', () => {
    const dir = scope.temp('roster-launcher-links-');
    mkdirSync(join(dir, 'bin'));
    symlinkSync(LAUNCHER, join(dir, 'absolute'));
    symlinkSync('../absolute', join(dir, 'bin', 'roster'));
    const [, script] = launch(join(dir, 'bin', 'roster'), []);
    expect(script).toBe(resolve('bin/roster.js'));
  });

  it('leaves a MALLOC_ARENA_MAX the person set as it is', () => {
    expect(launch(LAUNCHER, ['--version'], { MALLOC_ARENA_MAX: '8' })[0]).toBe('arena=8');
  });
});
