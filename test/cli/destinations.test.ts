/**
 * #24 item 1: every file the CLI writes where a person told it to — an export, an import report,
 * a saved plan, a download, a backup, the config — fails as one line naming that destination
 * and the cause (never the temp file beside it, never a stack), exit 1, nothing half-written
 * left behind. Real failures: a missing directory, a path through a file, a full and a
 * read-only tmpfs (mounted here: root), and a directory the CLI may not write to.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliServed, startCliServed } from '../helpers/cli-run.js';
import { start } from '../helpers/e2e.js';
import { engineAvailable } from '../helpers/engine.js';
import { scratch } from '../helpers/scratch.js';

const dirs = scratch();

let s: CliServed;
let base: string;
let csv: string;
let mediumId: string;

beforeAll(async () => {
  s = await startCliServed();
  base = dirs.temp('roster-dest-');
  chmodSync(base, 0o755);
  csv = join(base, 'people.csv');
  writeFileSync(csv, 'externalId,email,firstName\nD1,d1@example.com,Dana\n');
  const note = join(base, 'note.txt');
  writeFileSync(note, 'a medium to download\n');
  const up = await s.run(['media', 'upload', note, '-o', 'json']);
  expect(up.exitCode, up.stderr).toBe(0);
  mediumId = JSON.parse(up.stdout)[0]?.id ?? JSON.parse(up.stdout).id;
});
afterAll(async () => {
  await s.close();
  await dirs.cleanup();
});

/** Each write site as the command that writes it, given the destination. */
const SITES: Record<string, (to: string) => string[]> = {
  export: (to) => ['users', 'export', '--to', to],
  'import report': (to) => ['users', 'import', csv, '--no-send-mail', '--report', to],
  'saved plan': (to) => ['users', 'import', csv, '--dry-run', '--save-plan', to],
  download: (to) => ['media', 'download', mediumId, '--to', to],
  backup: (to) => ['backup', '--to', to],
};

/** The one line a failed write prints, and nothing else. */
function expectRefused(r: { exitCode?: number; stderr: string }, to: string, cause: RegExp) {
  expect(r.exitCode, r.stderr).toBe(1);
  const lines = r.stderr.trim().split('\n');
  expect(lines.filter((l) => l.includes('cannot write'))).toEqual([
    expect.stringMatching(
      new RegExp(`^error: cannot write ${to.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `),
    ),
  ]);
  expect(r.stderr).toMatch(cause);
  expect(r.stderr).not.toMatch(/\.tmp|\.part|Unhandled|\n\s+at /);
}

/** What a directory holds besides `keep`: a failed write leaves nothing there. */
const leftovers = (dir: string, keep: string[] = []) =>
  existsSync(dir) ? readdirSync(dir).filter((f) => !keep.includes(f)) : [];

describe('a destination whose directory is missing', () => {
  it.each(Object.keys(SITES))('%s: names the directory, writes nothing', async (site) => {
    const to = join(base, 'missing', `${site.replace(' ', '-')}.out`);
    const r = await s.run(SITES[site]!(to));
    expectRefused(r, to, /the directory .*missing does not exist/);
    expect(existsSync(join(base, 'missing'))).toBe(false);
  });

  it('the config: a config dir below a file is "not a directory"', async () => {
    const file = join(base, 'plain-file');
    writeFileSync(file, '');
    const r = await s.run(
      ['login', '--base-url', s.baseUrl, '--token', s.adminToken, '--profile', 'other'],
      { env: { ROSTER_CONFIG_DIR: join(file, 'config') } },
    );
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr).toMatch(
      /^error: cannot write .*plain-file\/config\/config\.json: .*not a directory/m,
    );
  });
});

describe('a destination that is a directory', () => {
  it.each(['saved plan', 'import report'])('%s: says to give a file name', async (site) => {
    const to = join(base, `dir-${site.replace(' ', '-')}`);
    mkdirSync(to);
    const r = await s.run(SITES[site]!(to));
    expectRefused(r, to, /it is a directory; give a file name/);
    expect(leftovers(base).filter((f) => f.startsWith('.'))).toEqual([]);
  });
});

const root = process.getuid?.() === 0;
describe.runIf(
  engineAvailable(
    'full and read-only disk tests',
    root,
    'run as root (they mount tmpfs), as CI does',
  ),
)('a full disk, a read-only one, a directory the CLI may not write to', () => {
  const mounts: string[] = [];
  const mount = (name: string, options: string) => {
    const dir = join(base, name);
    mkdirSync(dir);
    execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir]);
    mounts.push(dir);
    return dir;
  };
  let full: string;
  let readOnly: string;
  let locked: string;
  beforeAll(() => {
    full = mount('full', 'size=64k');
    // Every block taken: the next byte written anywhere on it is ENOSPC.
    try {
      execFileSync('dd', ['if=/dev/zero', `of=${join(full, 'filler')}`, 'bs=4k'], {
        stdio: 'ignore',
      });
    } catch {
      // dd stops with an error once the disk is full: that is the point.
    }
    readOnly = mount('read-only', 'ro,size=64k');
    locked = join(base, 'locked');
    mkdirSync(locked, { mode: 0o555 });
  });
  afterAll(() => {
    for (const dir of mounts) execFileSync('umount', ['-l', dir]);
  });

  it.each(Object.keys(SITES))(
    '%s on a full disk: "no space left", nothing left behind',
    async (site) => {
      const to = join(full, `${site.replace(' ', '-')}.out`);
      const r = await s.run(SITES[site]!(to));
      expectRefused(r, to, /no space left on the device/);
      expect(leftovers(full, ['filler'])).toEqual([]);
    },
  );

  it.each(Object.keys(SITES))('%s on a read-only file system', async (site) => {
    const to = join(readOnly, `${site.replace(' ', '-')}.out`);
    const r = await s.run(SITES[site]!(to));
    expectRefused(r, to, /read-only file system/);
  });

  // Permission bits as a non-root user meets them: the CLI spawned without root's power to
  // override them (CAP_DAC_OVERRIDE), so the checkout need not be readable by another user.
  const asUser = (args: string[]) =>
    start(args, {
      under: ['setpriv', '--bounding-set=-dac_override,-dac_read_search', '--'],
      env: {
        ROSTER_BASE_URL: s.baseUrl,
        ROSTER_TOKEN: s.adminToken,
        ROSTER_CONFIG_DIR: join(base, 'user-config'),
        ROSTER_DATA_DIR: s.dataDir,
      },
      input: '',
    }).done;

  it.each(['export', 'import report', 'saved plan', 'download'])(
    '%s in a directory the user may not write to: "permission denied"',
    async (site) => {
      const to = join(locked, `${site.replace(' ', '-')}.out`);
      const r = await asUser(SITES[site]!(to));
      expectRefused(r, to, /permission denied/);
      expect(leftovers(locked)).toEqual([]);
    },
  );
});
