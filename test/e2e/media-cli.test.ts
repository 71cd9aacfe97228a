/**
 * `roster media …` as a user runs them, on real files against a real server on a real port: the
 * CLI's run() in-process, and the built CLI spawned where a signal interrupts it.
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliServed, startCliServed } from '../helpers/cli-run.js';
import { start } from '../helpers/e2e.js';
import { eventually } from '../helpers/eventually.js';
import { scratch } from '../helpers/scratch.js';

const dirs = scratch();

let srv: CliServed;
let dir: string;
const at = (name: string) => join(dir, name);
const json = (text: string) => JSON.parse(text);

/** A one-page PDF (595×842 pt) with a filled box: enough for a preview. */
function tinyPdf(): Buffer {
  const content = '0.2 0.4 0.8 rg 72 300 450 300 re f\n';
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R >>',
    `<< /Length ${content.length} >>\nstream\n${content}endstream`,
  ];
  let out = '%PDF-1.4\n';
  const offsets = objects.map((body, i) => {
    const offset = out.length;
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
    return offset;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

const png = (width: number, height: number, r: number) =>
  sharp({ create: { width, height, channels: 3, background: { r, g: 80, b: 160 } } })
    .png()
    .toBuffer();

beforeAll(async () => {
  dir = dirs.temp('roster-media-cli-');
  mkdirSync(at('photos/2024'), { recursive: true });
  mkdirSync(at('empty-dir'));
  const [a, b, c] = await Promise.all([png(64, 48, 10), png(32, 32, 90), png(20, 10, 200)]);
  await Promise.all([
    writeFile(at('photos/a.png'), a),
    writeFile(at('photos/b.png'), b),
    writeFile(at('photos/2024/c.png'), c),
    writeFile(at('report.pdf'), tinyPdf()),
    writeFile(at('notes.txt'), 'plain text, stored as raw\n'),
  ]);
  srv = await startCliServed();
});
afterAll(async () => {
  await srv?.close();
  await dirs.cleanup();
});

/** Every medium of the branch, by file name. */
async function mediaByName(): Promise<Record<string, any>> {
  const r = await srv.run(['media', 'list', '--all']);
  expect(r.exitCode, r.stderr).toBe(0);
  return Object.fromEntries(json(r.stdout).map((m: any) => [m.fileName, m]));
}

describe('media upload', () => {
  it('several files and globs, a missing file in the middle: exit 5, the others uploaded', async () => {
    const r = await srv.run([
      'media',
      'upload',
      at('photos/*.png'),
      at('missing.png'),
      at('report.pdf'),
      at('photos/**/c.png'),
    ]);
    expect(r.exitCode, r.stderr).toBe(5);
    const media = json(r.stdout);
    expect(media.map((m: any) => m.fileName)).toEqual(['a.png', 'b.png', 'report.pdf', 'c.png']);
    expect(media[0]).toMatchObject({
      entityType: 'medium',
      resourceInfo: { type: 'image', width: 64, height: 48, format: 'png' },
      transformations: { t_preview: { status: 'FINISHED' } },
    });
    expect(media[2].resourceInfo).toMatchObject({ type: 'pdf', mimeType: 'application/pdf' });
    expect(r.stderr).toContain(`failed ${at('missing.png')}: no such file`);
    expect(r.stderr).toMatch(
      /uploaded .*photos\/a\.png → [0-9a-f]{24} \(image, [\d.]+ \w?B, 64x48\)/,
    );
    expect(r.stderr).toContain('4 uploaded, 1 failed');
    expect(r.stderr).toContain('error: 1 of 5 files failed');
    expect(Object.keys(await mediaByName()).sort()).toEqual([
      'a.png',
      'b.png',
      'c.png',
      'report.pdf',
    ]);
  });

  it('a directory and an unreadable file are reported by name', async () => {
    const secret = at('secret.txt');
    await writeFile(secret, 'not for you');
    chmodSync(secret, 0o600);
    chmodSync(dir, 0o755);
    const root = process.getuid?.() === 0;
    if (!root) chmodSync(secret, 0o000);
    // root reads any file: run the CLI as nobody instead, with the token in the environment.
    const r = await start(['media', 'upload', secret, at('empty-dir')], {
      env: { HOME: dir, ROSTER_BASE_URL: srv.baseUrl, ROSTER_TOKEN: srv.adminToken },
      ...(root ? { uid: 65534, gid: 65534 } : {}),
    }).done;
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr).toContain(`failed ${secret}: permission denied (not readable)`);
    expect(r.stderr).toContain(`failed ${at('empty-dir')}: is a directory`);
    expect(r.stdout).toBe('[]\n'); // as printed: the harness keeps the final newline
  });

  it('ndjson, csv and table output; --type is sent as the hint', async () => {
    const nd = await srv.run(['-o', 'ndjson', 'media', 'upload', at('notes.txt'), '--type', 'raw']);
    expect(nd.exitCode, nd.stderr).toBe(0);
    const lines = nd.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(json(lines[0]!)).toMatchObject({ fileName: 'notes.txt', resourceInfo: { type: 'raw' } });

    const csv = await srv.run(['media', 'list', '-o', 'csv']);
    expect(csv.stdout.split('\n')[0]).toBe('id,name,type,bytes,dimensions,preview');
    expect(csv.stdout).toMatch(/\n[0-9a-f]{24},notes\.txt,raw,26,,no\n/);
    expect(csv.stdout).toMatch(/\n[0-9a-f]{24},a\.png,image,\d+,64x48,yes\n/);

    const table = await srv.run(['media', 'list', '-o', 'table', '--limit', '2']);
    expect(table.stdout).toMatch(/│ id\s+│ name\s+│ type\s+│ size\s+│ dimensions\s+│ preview │/);
    expect(table.stdout).toMatch(/│ notes\.txt\s+│ raw\s+│ 26 B\s+│\s+│ no\s+│/);
    expect(table.stderr).toContain('showing 1–2 of 5; --all for every page, or --offset 2');
  });

  it('a large sparse file (300 MiB) streams through; Ctrl-C in its download leaves no file', async () => {
    const big = at('big.bin');
    await writeFile(big, '');
    await truncate(big, 300 * 1024 * 1024);
    const r = await srv.run(['media', 'upload', big]);
    expect(r.exitCode, r.stderr).toBe(0);
    const [medium] = json(r.stdout);
    expect(medium.resourceInfo).toMatchObject({ type: 'raw', bytes: 300 * 1024 * 1024 });
    rmSync(big);

    const out = mkdtempSync(join(dir, 'partial-'));
    const child = start(['media', 'download', medium.id, '--to', out], { env: srv.env });
    // Interrupt once the temp file is being written.
    await eventually(() => readdirSync(out).length > 0, 10_000);
    child.kill('SIGINT');
    const d = await child.done;
    expect(d.exitCode, d.stderr).toBe(130);
    expect(readdirSync(out)).toEqual([]);

    const del = await srv.run(['media', 'delete', medium.id, '--yes']);
    expect(del.exitCode, del.stderr).toBe(0);
  });

  it('Ctrl-C cancels the upload in flight: exit 130, no medium, no partial file kept', async () => {
    const huge = at('huge.bin');
    await writeFile(huge, '');
    await truncate(huge, 1024 ** 3);
    const before = Object.keys(await mediaByName()).length;
    const child = start(['media', 'upload', huge], { env: srv.env });
    // Wait until the service is receiving the file, then interrupt.
    const tmp = join(srv.dataDir, 'media', 'tmp');
    const receiving = () => {
      try {
        return readdirSync(tmp).length > 0;
      } catch {
        return false;
      }
    };
    await eventually(receiving, 10_000);
    child.kill('SIGINT');
    const r = await child.done;
    expect(r.exitCode, r.stderr).toBe(130);
    expect(r.stderr).toContain('0 uploaded, 0 failed, 1 cancelled');
    expect(r.stderr).toContain('interrupted');
    expect(Object.keys(await mediaByName())).toHaveLength(before);
    // The service removes its scratch file once it has seen the client go.
    await eventually(() => !receiving());
    rmSync(huge);
  });
});

describe('media show, download', () => {
  it('show: the medium as JSON; an unknown id: exit 4', async () => {
    const { 'a.png': a } = await mediaByName();
    const r = await srv.run(['media', 'show', a.id]);
    expect(r.exitCode).toBe(0);
    expect(json(r.stdout)).toMatchObject({ id: a.id, fileName: 'a.png' });
    const missing = await srv.run(['media', 'show', '000000000000000000000000']);
    expect(missing.exitCode).toBe(4);
  });

  it('download: the same bytes as uploaded, under the medium name; no temp file left', async () => {
    const { 'a.png': a, 'report.pdf': pdf } = await mediaByName();
    const out = mkdtempSync(join(dir, 'out-'));
    const r = await srv.run(['media', 'download', a.id, '--to', out]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(join(out, 'a.png')).equals(readFileSync(at('photos/a.png')))).toBe(true);
    expect(r.stderr).toContain(`saved a.png`);

    const again = await srv.run(['media', 'download', a.id, '--to', out]);
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain('already exists; pass --force');
    const forced = await srv.run(['media', 'download', a.id, '--to', out, '--force']);
    expect(forced.exitCode, forced.stderr).toBe(0);

    const preview = await srv.run(['media', 'download', pdf.id, '--preview', '--to', out]);
    expect(preview.exitCode, preview.stderr).toBe(0);
    const jpeg = readFileSync(join(out, 'report.preview.jpg'));
    expect(jpeg.subarray(0, 3).toString('hex')).toBe('ffd8ff');
    expect(readdirSync(out).sort()).toEqual(['a.png', 'report.preview.jpg']);

    const piped = await srv.run(['media', 'download', pdf.id, '--to', '-']);
    expect(piped.stdout).toBe(tinyPdf().toString('latin1'));
  });
});

describe('media delete', () => {
  it('-y deletes; per-id results; the medium and its URL are gone', async () => {
    const { 'b.png': b, 'c.png': c } = await mediaByName();
    const r = await srv.run(['media', 'delete', b.id, 'nope', c.id, '-y', '-o', 'csv']);
    expect(r.exitCode).toBe(5);
    expect(r.stdout).toContain(`${b.id},deleted,deleted,\n`);
    expect(r.stdout).toMatch(/\nnope,failed,,.*nope/);
    expect((await srv.run(['media', 'show', b.id])).exitCode).toBe(4);
    const fetched = await fetch(b.resourceInfo.url);
    expect(fetched.status).toBe(404);
  });
});

describe('roster check --write', () => {
  it('uploads, reads and deletes a throwaway medium', async () => {
    const before = Object.keys(await mediaByName()).sort();
    const r = await srv.run(['check', '--write', '--json']);
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    const steps = json(r.stdout).steps.filter((s: any) => s.name.includes('/media'));
    expect(steps.map((s: any) => s.result)).toEqual(steps.map(() => 'pass'));
    expect(steps.map((s: any) => s.name)).toEqual(
      expect.arrayContaining([
        'POST /media (a throwaway file)',
        expect.stringMatching(/^DELETE \/media\/[0-9a-f]{24}$/),
      ]),
    );
    expect(Object.keys(await mediaByName()).sort()).toEqual(before);
  });
});
