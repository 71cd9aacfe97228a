/**
 * `roster events list` and `roster users history` in-process against a real server: every
 * output format, the filters as flags, and "not offered" against a service without events.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORMATS, formatterOf } from '../../../../src/cli/output/formats/index.js';
import { type CliServed, startCliServed } from '../../../helpers/cli-run.js';
import { jsonBody } from '../../../helpers/server.js';

/** A command line as a POSIX shell splits it: words, 'single-quoted' ones kept whole. */
const shellWords = (line: string) =>
  [...line.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map((m) =>
    m[1] !== undefined ? m[1].replaceAll("'\\''", "'") : m[2]!,
  );

let srv: CliServed;
let platform: CliServed;
let ann: string;

beforeAll(async () => {
  srv = await startCliServed();
  platform = await startCliServed({ likePlatform: true });
  const created = await srv.req(
    'POST',
    '/api/users',
    jsonBody({ email: 'ann@example.com', profile: { department: 'Ops' } }),
  );
  ann = created.json.id;
  await srv.req('PUT', `/api/users/${ann}`, jsonBody({ profile: { department: 'Sales' } }));
  await srv.req('POST', '/api/users', jsonBody({ email: 'bob@example.com' }));
});
afterAll(async () => {
  await srv?.close();
  await platform?.close();
});

describe('events list', () => {
  it('-o json: the events, oldest first; --type and --user (an email) filter', async () => {
    const r = await srv.run(['events', 'list', '--type', 'user.*', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const types = JSON.parse(r.stdout).map((e: any) => [e.type, e.target.email]);
    expect(types).toEqual([
      ['user.created', 'ann@example.com'],
      ['user.updated', 'ann@example.com'],
      ['user.created', 'bob@example.com'],
    ]);
    const mine = await srv.run(['events', 'list', '--user', 'ann@example.com', '-o', 'json']);
    expect(JSON.parse(mine.stdout).map((e: any) => e.type)).toEqual([
      'user.created',
      'user.updated',
    ]);
    const updated = await srv.run(['events', 'list', '--type', 'user.updated', '--since', '1h']);
    expect(JSON.parse(updated.stdout)).toHaveLength(1);
  });

  it('-o ndjson, csv, yaml and table', async () => {
    const nd = await srv.run(['events', 'list', '--type', 'user.created', '-o', 'ndjson']);
    expect(
      nd.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).type),
    ).toEqual(['user.created', 'user.created']);
    const csv = await srv.run(['events', 'list', '--type', 'user.updated', '-o', 'csv']);
    expect(csv.stdout.split('\n')[0]).toBe('time,type,target,by,changes');
    expect(csv.stdout).toContain('profile.department: Ops → Sales');
    const yaml = await srv.run(['events', 'list', '--type', 'user.updated', '-o', 'yaml']);
    expect(yaml.stdout).toContain('type: user.updated');
    const table = await srv.run(['events', 'list', '--type', 'user.updated', '-o', 'table']);
    expect(table.stdout).toMatch(/user\.updated\W+ann@example\.com\W+admin\/api/);
  });

  it('--limit with more to come names --all and the cursor; --after continues', async () => {
    const r = await srv.run(['events', 'list', '--type', 'user.*', '--limit', '2', '-o', 'json']);
    expect(JSON.parse(r.stdout)).toHaveLength(2);
    const cursor = /--after (\S+)/.exec(r.stderr)?.[1];
    expect(cursor).toBeDefined();
    const rest = await srv.run(['events', 'list', '--type', 'user.*', '--after', cursor!]);
    expect(JSON.parse(rest.stdout).map((e: any) => e.target.email)).toEqual(['bob@example.com']);
    const all = await srv.run(['events', 'list', '--type', 'user.*', '--limit', '2', '--all']);
    expect(JSON.parse(all.stdout)).toHaveLength(3);
  });

  it('the "more events follow" hint is a command that runs as printed: its filters repeated, --since as the time it meant', async () => {
    const r = await srv.run([
      ...['events', 'list', '--type', 'user.*', '--user', 'ann@example.com'],
      ...['--since', '1h', '--limit', '1', '-o', 'json'],
    ]);
    expect(JSON.parse(r.stdout).map((e: any) => e.type)).toEqual(['user.created']);
    const hint = /continue with: roster (.+)$/m.exec(r.stderr)?.[1];
    expect(hint, r.stderr).toMatch(
      /^events list --type 'user\.\*' --user \S+ --since \S+Z --after \S+$/,
    );
    const rest = await srv.run([...shellWords(hint!), '-o', 'json']);
    expect(rest.exitCode, rest.stderr).toBe(0);
    expect(JSON.parse(rest.stdout).map((e: any) => e.type)).toEqual(['user.updated']);
  });

  it('a page of exactly --limit events, the last there is: no "more events follow"', async () => {
    const r = await srv.run(['events', 'list', '--type', 'user.updated', '--limit', '1']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(1);
    expect(r.stderr).not.toContain('more events follow');
  });

  it('bad input: an unknown type is the service 400 naming it; a bad --since a usage error', async () => {
    const r = await srv.run(['events', 'list', '--type', 'user.renamed']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('user.renamed');
    const s = await srv.run(['events', 'list', '--since', 'yesterday']);
    expect(s.exitCode).toBe(2);
    expect(s.stderr).toContain('--since');
  });
});

describe('users history', () => {
  it('a deleted user by id: their history to the deletion (events list --user too); by email, how to find them', async () => {
    const made = await srv.req('POST', '/api/users', jsonBody({ email: 'gone@example.com' }));
    expect((await srv.req('DELETE', `/api/users/${made.json.id}`)).status).toBeLessThan(300);
    const r = await srv.run(['users', 'history', made.json.id, '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).map((e: any) => e.type)).toEqual(['user.deleted', 'user.created']);
    const listed = await srv.run(['events', 'list', '--user', made.json.id, '-o', 'json']);
    expect(JSON.parse(listed.stdout).map((e: any) => e.type)).toEqual([
      'user.created',
      'user.deleted',
    ]);
    const byEmail = await srv.run(['users', 'history', 'gone@example.com']);
    expect(byEmail.exitCode).toBe(4);
    expect(byEmail.stderr).toContain('events list --type user.deleted');
    // An id nobody had (a typo) is still a 404, not an empty history.
    const typo = await srv.run(['users', 'history', '65f000000000000000000bad']);
    expect(typo.exitCode).toBe(4);
    expect(typo.stderr).toContain('no user has the id 65f000000000000000000bad');
  });

  it("one person's changes, newest first, field: from → to", async () => {
    const r = await srv.run(['users', 'history', 'ann@example.com', '-o', 'csv']);
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[1]).toContain('user.updated');
    expect(lines[1]).toContain('profile.department: Ops → Sales');
    expect(lines[2]).toContain('user.created');
    const json = await srv.run(['users', 'history', ann, '-o', 'json']);
    expect(JSON.parse(json.stdout).map((e: any) => e.type)).toEqual([
      'user.updated',
      'user.created',
    ]);
  });
});

describe('events tail -o', () => {
  // From the registry: a format that cannot follow an endless stream is refused before a request.
  it.each(FORMATS.filter((f) => formatterOf(f).follows === undefined))(
    '-o %s: a usage error naming what tail prints',
    async (format) => {
      const r = await srv.run(['events', 'tail', '-o', format]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain(
        `events tail prints lines, or one JSON event per line with -o ndjson (not -o ${format})`,
      );
    },
  );
});

describe('a service without events', () => {
  it.each([[['events', 'list']], [['events', 'tail']]])(
    '%s: "not offered by this service", exit 1, no stack',
    async (args) => {
      const r = await platform.run(args);
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain('not offered by this service');
      expect(r.stderr).not.toMatch(/\n\s+at /);
    },
  );
});

describe('Roster-Run-Id', () => {
  it('users import sends one run id on every request; its report records it; --run lists the run', async () => {
    const { people, tempCsv } = await import('../../../import/helpers.js');
    const csv = tempCsv(people('RUN', 3), 'run.csv');
    const report = `${csv}.report.csv`;
    const r = await srv.run(['users', 'import', csv, '--no-send-mail', '--report', report]);
    expect(r.exitCode, r.stderr).toBe(0);
    const { readFileSync } = await import('node:fs');
    const runId = JSON.parse(readFileSync(`${report}.run.json`, 'utf8')).runId;
    expect(runId).toMatch(/^run-\d{8}T\d{6}Z-[0-9a-f]{8}$/);
    const listed = await srv.run(['events', 'list', '--run', runId, '-o', 'json']);
    const events = JSON.parse(listed.stdout);
    expect(events.map((e: any) => e.target.externalId)).toEqual(['RUN-0', 'RUN-1', 'RUN-2']);
    expect(events.every((e: any) => e.run === runId)).toBe(true);
  });
});
