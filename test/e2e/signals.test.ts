/**
 * Ctrl-C in a real terminal (issue: ignored once a spinner had run). The first Ctrl-C stops the
 * command (in-flight work finishes or is cancelled, the import report is flushed, the resume
 * hint printed) and exits 130; `serve` drains and exits 0.
 */
import { readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Served, serve } from '../helpers/e2e.js';
import { holdProxy } from '../helpers/hold-proxy.js';
import { inPty } from './helpers/pty.js';

let srv: Served;
beforeAll(async () => {
  srv = await serve();
});
afterAll(() => srv.close());

const csv = (rows: number, prefix: string) => {
  const path = join(srv.dataDir, `${prefix}.csv`);
  const lines = ['externalId,email,firstName,lastName'];
  for (let i = 0; i < rows; i++) lines.push(`${prefix}-${i},${prefix}${i}@example.com,F${i},L${i}`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
};

describe('Ctrl-C on a terminal', () => {
  test('during an import: stops, flushes the report, names --resume, exits 130', async () => {
    const file = csv(200, 'sig');
    const report = join(srv.dataDir, 'sig-report.csv');
    // Ctrl-C lands while create #50 is held, so the run is stopped part-way on any machine.
    const proxy = await holdProxy(
      new URL(srv.baseUrl).origin,
      (req) => req.method === 'POST' && req.url === '/api/users',
      50,
    );
    try {
      const env = { ...srv.env, ROSTER_BASE_URL: `${proxy.url}/api`, ROSTER_TOKEN: srv.adminToken };
      const run = inPty(
        ['users', 'import', file, '--report', report, '--no-send-mail', '--concurrency', '1'],
        env,
      );
      await proxy.held;
      run.type('\x03');
      await run.waitFor('stopping:');
      proxy.release();
      const { exitCode, screen } = await run.exited;
      expect(exitCode, screen).toBe(130);
      expect(screen).toContain(`roster users import --resume ${report}`);
      const rows = readFileSync(report, 'utf8').trim().split('\n').length - 1;
      expect(rows).toBe(50); // one at a time: up to the held create, which finishes
      // What the report calls done is done: a resume completes the rest, nothing twice.
      const resumed = await srv.run(['users', 'import', '--resume', report, '-o', 'json'], { env });
      expect(resumed.exitCode, resumed.stderr).toBe(0);
      const summary = JSON.parse(resumed.stdout);
      expect(summary.failed).toBe(0);
      expect(summary.created + summary.unchanged + (summary.skipped ?? 0)).toBe(200);
    } finally {
      await proxy.close();
    }
  });

  test('while a spinner runs (users list --all as a table): exits 130', async () => {
    await srv.run(['users', 'import', csv(30, 'lst'), '--no-send-mail']);
    // Ctrl-C lands while page 2 of 3 is held: the spinner is up, on any machine.
    const proxy = await holdProxy(
      new URL(srv.baseUrl).origin,
      (req) => req.method === 'GET' && (req.url ?? '').startsWith('/api/users?'),
      2,
    );
    try {
      const env = { ...srv.env, ROSTER_BASE_URL: `${proxy.url}/api`, ROSTER_TOKEN: srv.adminToken };
      const run = inPty(['users', 'list', '--all', '--limit', '10', '--status', 'all'], env);
      await proxy.held;
      run.type('\x03');
      const { exitCode, screen } = await run.exited;
      expect(exitCode, screen.slice(-500)).toBe(130);
      expect(screen).toContain('interrupted');
    } finally {
      proxy.release();
      await proxy.close();
    }
  });

  test('during an upload: the transfer is cancelled, nothing is stored, exit 130', async () => {
    const big = join(srv.dataDir, 'big.bin');
    writeFileSync(big, '');
    truncateSync(big, 300 * 1024 * 1024);
    const before = (await srv.run(['media', 'list', '--all'])).stdout;
    const run = inPty(['media', 'upload', big], srv.env);
    await run.waitFor(/big\.bin.*\d+(\.\d+)? ?[MG]i?B/);
    run.type('\x03');
    const { exitCode, screen } = await run.exited;
    expect(exitCode, screen.slice(-400)).toBe(130);
    expect(screen).toContain('cancelled');
    expect((await srv.run(['media', 'list', '--all'])).stdout).toBe(before);
  });

  test('at a confirmation prompt: nothing is removed, exit 130', async () => {
    const run = inPty(['users', 'remove', 'lst-1'], srv.env);
    await run.waitFor('?');
    run.type('\x03');
    const { exitCode } = await run.exited;
    expect(exitCode).toBe(130);
    expect((await srv.run(['users', 'show', 'lst-1', '-o', 'json'])).exitCode).toBe(0);
  });
});
