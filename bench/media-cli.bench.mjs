import { existsSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, exec, fmt, heading, line, peakRssMb, rssPreload, serve, tempDir } from './lib.mjs';

const MIB = Number(process.env.BENCH_UPLOAD_MIB ?? 1024);
const TIME = '/usr/bin/time';

/** Runs a command (under /usr/bin/time -v when present); wall time, stdout, peak RSS in MB. */
async function measured(cmd, args, env = {}) {
  const timed = existsSync(TIME);
  const [file, argv] = timed ? [TIME, ['-v', cmd, ...args]] : [cmd, args];
  const { out, err, seconds } = await exec(file, argv, env);
  const kb = /Maximum resident set size \(kbytes\): (\d+)/.exec(err)?.[1];
  return { seconds, out, rssMb: kb ? Number(kb) / 1024 : peakRssMb(err) };
}

/** Deletes an uploaded medium so the next run does not need another GiB of disk. */
async function remove(origin, token, id) {
  const res = await fetch(`${origin}/api/media/${id}`, {
    method: 'DELETE',
    headers: { authorization: `Basic ${token}` },
  });
  if (res.status !== 204) throw new Error(`DELETE /media/${id} answered ${res.status}`);
}

export async function run() {
  heading(
    `media upload: one ${fmt(MIB, 0)} MiB file, roster media upload vs curl -F (same server)`,
  );
  const dir = tempDir('roster-bench-media-cli-');
  const configDir = join(dir, 'config');
  const server = await serve(join(dir, 'data'), configDir);
  const file = join(dir, 'upload.bin');
  writeFileSync(file, '');
  truncateSync(file, MIB * 1024 * 1024);
  const bytes = MIB * 1024 * 1024;
  try {
    const curl = await measured('curl', [
      '-sS',
      '--fail-with-body',
      '-H',
      `Authorization: Basic ${server.token}`,
      '-F',
      `file=@${file}`,
      '-F',
      'metaData={"type":"raw"};type=application/json',
      `${server.origin}/api/media`,
    ]);
    const curled = JSON.parse(curl.out);
    if (curled.resourceInfo?.bytes !== bytes) throw new Error(`curl upload: ${curl.out}`);
    await remove(server.origin, server.token, curled.id);

    const preload = existsSync(TIME) ? [] : ['--import', rssPreload(dir)];
    const cli = await measured(
      process.execPath,
      [...preload, BIN, 'media', 'upload', file, '--type', 'raw', '-o', 'json'],
      { ROSTER_CONFIG_DIR: configDir, NO_COLOR: '1' },
    );
    const [uploaded] = JSON.parse(cli.out);
    if (uploaded?.resourceInfo?.bytes !== bytes) throw new Error(`CLI upload: ${cli.out}`);
    await remove(server.origin, server.token, uploaded.id);

    const rate = (r) => bytes / 1024 ** 2 / r.seconds;
    const rss = (r) => (r.rssMb === undefined ? 'n/a' : `${fmt(r.rssMb, 0)} MB`);
    line(
      'curl -F (wall clock)',
      `${fmt(rate(curl), 0)} MiB/s (${fmt(curl.seconds, 2)} s), peak RSS ${rss(curl)}`,
    );
    line(
      'roster media upload (wall clock, start-up included)',
      `${fmt(rate(cli), 0)} MiB/s (${fmt(cli.seconds, 2)} s), peak RSS ${rss(cli)}`,
    );
    line('roster / curl throughput (goal >= 0.8x)', `${(rate(cli) / rate(curl)).toFixed(2)}x`);
    line('roster peak RSS (goal < 120 MB)', rss(cli));
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
