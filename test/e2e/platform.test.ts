/**
 * The CLI against a server that behaves as the real platform's documentation says
 * (`roster serve --like-platform --vendor staffbase`: no GET /api, new users only as
 * user-invite.v2 with role and locale, changes as user-update.v1, sorting by name keys only).
 * The server and most commands run in this process (the CLI's run()); the terminal prompt is the
 * built CLI in a real pseudo-terminal.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliServed, startCliServed } from '../helpers/cli-run.js';
import type { Env } from '../helpers/e2e.js';
import { scratch } from '../helpers/scratch.js';
import { inPty } from './helpers/pty.js';

const tmp = scratch();
let srv: CliServed;
beforeAll(async () => {
  srv = await startCliServed({ likePlatform: true, vendor: 'staffbase' });
});
afterAll(async () => {
  await srv?.close();
  await tmp.cleanup();
});

/** A config dir of its own (one not yet made, so the CLI makes it), as a new admin's machine. */
const freshConfig = (): Env => ({
  ROSTER_CONFIG_DIR: join(tmp.temp('roster-platform-'), 'config'),
});

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

async function loggedIn(extra: string[] = []) {
  const env = freshConfig();
  const r = await srv.run(
    ['login', '--base-url', srv.baseUrl, '--token', srv.adminToken, '--profile', 'sb', ...extra],
    { env },
  );
  expect(r.exitCode, r.stderr).toBe(0);
  return env;
}

describe('the CLI against the real platform (serve --like-platform)', () => {
  it('login without --vendor detects it without GET /api: 406, then the known words', async () => {
    const env = await loggedIn();
    const dir = env.ROSTER_CONFIG_DIR!;
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    expect(config.profiles.sb.vendor).toBe('staffbase');
    // What the base URL accepted is kept apart from the profile, owner-only.
    const memory = JSON.parse(readFileSync(join(dir, 'media-types.json'), 'utf8'));
    expect(memory[srv.baseUrl]).toMatchObject({ vendor: 'staffbase', catalog: false });
    expect(JSON.stringify(memory)).not.toContain(srv.adminToken);
    expect(mode(join(dir, 'media-types.json'))).toBe('600');
    expect(mode(dir)).toBe('700');
  });

  it('--vendor is the override: a wrong one is corrected by the service and said so', async () => {
    const env = freshConfig();
    const r = await srv.run(
      ['login', '--base-url', srv.baseUrl, '--token', srv.adminToken, '--vendor', 'service'],
      { env },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain("the service answers to vendor 'staffbase', not 'service'");
  });

  it('env-only setups learn it too, remembered per base URL: no second step down', async () => {
    const env = { ...freshConfig(), ROSTER_BASE_URL: srv.baseUrl, ROSTER_TOKEN: srv.adminToken };
    const first = await srv.run(['--verbose', 'users', 'list'], { env });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stderr).toContain(
      'stepping down to application/vnd.staffbase.accessors.users.v2+json',
    );
    const second = await srv.run(['--verbose', 'users', 'list'], { env });
    expect(second.exitCode, second.stderr).toBe(0);
    expect(second.stderr).not.toContain('stepping down');
    expect(second.stderr.match(/→ GET/g)).toHaveLength(1);
  });

  it('users invite: role and locale are required there; a clear error when not on a terminal', async () => {
    const env = await loggedIn();
    const r = await srv.run(['users', 'invite', '--email', 'no-role@example.com'], { env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('the service requires a role and a locale for new users');
    expect(r.stderr).toContain('--role and --locale');
    expect(r.stderr).toContain('roster profiles set');
    const flags = await srv.run(
      ['users', 'invite', '--email', 'flags@example.com', '--role', 'editor', '--locale', 'fr_FR'],
      { env },
    );
    expect(flags.exitCode, flags.stderr).toBe(0);
    expect(JSON.parse(flags.stdout)).toMatchObject({ role: 'editor', config: { locale: 'fr_FR' } });
    const list = await srv.run(['users', 'list', '--status', 'all', '--all'], { env });
    const emails = JSON.parse(list.stdout).map((u: any) => u.email?.value);
    expect(emails).toContain('flags@example.com');
    expect(emails).not.toContain('no-role@example.com');
  });

  it("the profile's defaults fill them (profiles set, or login --role/--locale)", async () => {
    const env = await loggedIn();
    const set = await srv.run(['profiles', 'set', 'sb', '--role', 'reader', '--locale', 'de_DE'], {
      env,
    });
    expect(set.exitCode, set.stderr).toBe(0);
    const bad = await srv.run(['profiles', 'set', 'sb', '--role', 'boss'], { env });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("--role: 'boss'");
    const r = await srv.run(['users', 'invite', '--email', 'dflt@example.com'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ role: 'reader', config: { locale: 'de_DE' } });

    const viaLogin = await loggedIn(['--role', 'moderator', '--locale', 'it_IT']);
    const m = await srv.run(['users', 'invite', '--email', 'mod@example.com'], { env: viaLogin });
    expect(JSON.parse(m.stdout)).toMatchObject({ role: 'moderator', config: { locale: 'it_IT' } });
    // A changed user goes as user-update.v1 at once: the table for this vendor knows it.
    const id = JSON.parse(m.stdout).id;
    const u = await srv.run(['--verbose', 'users', 'update', id, '--set', 'profile.position=CTO'], {
      env: viaLogin,
    });
    expect(u.exitCode, u.stderr).toBe(0);
    expect(u.stderr).not.toContain('stepping down');
    expect(JSON.parse(u.stdout).profile.position).toBe('CTO');
  });

  it('users import: the role and locale columns, else the defaults, else exit 2 before any row', async () => {
    const env = await loggedIn();
    const dir = tmp.temp('roster-platform-csv-');
    const bare = join(dir, 'bare.csv');
    writeFileSync(bare, 'externalId,email,firstName,lastName\nimp-1,imp1@example.com,Ida,Imp\n');
    const refused = await srv.run(['users', 'import', bare, '--no-send-mail'], { env });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('the service requires a role and a locale for new users');
    // A dry run's outcome is the run's: refused alike, not a plan of creates that cannot happen.
    const dry = await srv.run(['users', 'import', bare, '--dry-run'], { env });
    expect([dry.exitCode, dry.stderr]).toEqual([2, refused.stderr]);
    const withColumns = join(dir, 'columns.csv');
    writeFileSync(
      withColumns,
      'externalId,email,firstName,lastName,role,locale\nimp-2,imp2@example.com,Ole,Imp,editor,nb_NO\n',
    );
    const r = await srv.run(['users', 'import', withColumns, '--no-send-mail'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ created: 1, failed: 0 });
    await srv.run(['profiles', 'set', '--role', 'reader', '--locale', 'de_DE'], { env });
    const again = await srv.run(['users', 'import', bare, '--no-send-mail'], { env });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ created: 1, failed: 0 });
    const shown = await srv.run(['users', 'show', 'imp-1'], { env });
    expect(JSON.parse(shown.stdout)).toMatchObject({ role: 'reader', config: { locale: 'de_DE' } });
  });

  it('users import on a terminal asks once for the role and locale, then uses them for every row', async () => {
    const env = await loggedIn();
    const csv = join(tmp.temp('roster-platform-tty-'), 'people.csv');
    writeFileSync(
      csv,
      'externalId,email,firstName\ntty-1,tty1@example.com,Tia\ntty-2,tty2@example.com,Tom\n',
    );
    const run = inPty(['users', 'import', csv, '--no-send-mail'], { ...env, NO_COLOR: '1' });
    await run.waitFor('Role of new users');
    run.type('\r'); // the preselected role: reader
    await run.waitFor('Locale of new users');
    run.type('sv_SE\r');
    const { exitCode, screen } = await run.exited;
    expect(exitCode, screen).toBe(0);
    for (const id of ['tty-1', 'tty-2']) {
      const shown = await srv.run(['users', 'show', id], { env });
      expect(JSON.parse(shown.stdout)).toMatchObject({
        role: 'reader',
        config: { locale: 'sv_SE' },
      });
    }
  });

  it('export and import planning use the default sort only (the server rejects others) and match in memory', async () => {
    const env = await loggedIn(['--role', 'reader', '--locale', 'en_US']);
    // The server really rejects what an older client sent.
    const raw = await srv.run(['users', 'list', '--sort', 'externalId_ASC'], { env });
    expect(raw.exitCode).toBe(1);
    expect(raw.stderr).toContain("'externalId' is not one of firstName, lastName");

    const dir = tmp.temp('roster-platform-export-');
    const csv = join(dir, 'people.csv');
    writeFileSync(
      csv,
      'externalId,email,firstName,lastName\nz-9,zed@example.com,Zed,Alpha\na-1,ann@example.com,Ann,Zulu\n',
    );
    const first = await srv.run(['users', 'import', csv, '--no-send-mail'], { env });
    expect(first.exitCode, first.stderr).toBe(0);
    const out = join(dir, 'export.csv');
    const exported = await srv.run(['users', 'export', '--to', out], { env });
    expect(exported.exitCode, exported.stderr).toBe(0);
    const ids = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.split(',')[0]);
    // Sorted by externalId here, not by the server (which sorts by name): a-1 before z-9.
    expect(ids.indexOf('a-1')).toBeLessThan(ids.indexOf('z-9'));
    // Planning matched every row in memory: the same file again changes nothing.
    const rerun = await srv.run(['users', 'import', csv, '--no-send-mail'], { env });
    expect(JSON.parse(rerun.stdout)).toMatchObject({ created: 0, updated: 0, unchanged: 2 });
    // Other tests' users have no externalId: the round trip matches by email.
    const roundTrip = await srv.run(
      ['users', 'import', out, '--match', 'email', '--no-send-mail'],
      {
        env,
      },
    );
    expect(roundTrip.exitCode, roundTrip.stderr).toBe(0);
    expect(JSON.parse(roundTrip.stdout)).toMatchObject({ created: 0, updated: 0, failed: 0 });
  });

  it('check: no GET /api and no user.v2 are "not offered", not failures (exit 0)', async () => {
    const env = await loggedIn();
    const r = await srv.run(['check', '--write', '--json'], { env });
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ ok: true, vendor: 'staffbase' });
    const result = (name: string) => report.steps.find((s: any) => s.name === name)?.result;
    expect(result('reach the service: GET /api')).toBe('not offered');
    expect(result('GET /users/{id} (application/vnd.staffbase.accessors.user.v2+json)')).toBe(
      'not offered',
    );
    expect(result('POST /users (application/vnd.staffbase.accessors.user.v3+json)')).toBe(
      'not offered',
    );
    expect(result('POST /users (application/vnd.staffbase.accessors.user-invite.v2+json)')).toBe(
      'pass',
    );
    expect(
      result('PUT /users/{id} (application/vnd.staffbase.accessors.user-update.v1+json)'),
    ).toBe('pass');
    expect(report.steps.filter((s: any) => s.result === 'fail')).toEqual([]);
    const text = await srv.run(['check'], { env });
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toContain('○ reach the service: GET /api: not offered: 404');
  });
});
