// `roster users avatar sync` of a folder of phone-sized JPEGs (3-12 MP) against a baseline run
// in the same process and against the same server: the same resizes by sharp alone, then raw
// POSTs of the three outputs and the PUT of the user, as many at a time. The CLI is the built
// one, spawned; its wall clock includes start-up, listing the users and hashing every photo.
// BENCH_AVATARS sets the number of photos (default 1000; the goal is stated for 1000).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import {
  exec,
  fmt,
  heading,
  LAUNCHER,
  launcherEnv,
  line,
  peakRssMb,
  rssPreload,
  serve,
  tempDir,
} from './lib.mjs';

const N = Number(process.env.BENCH_AVATARS ?? 1000);
const CONCURRENCY = 4;
// Phone cameras: 3, 8 and 12 megapixels, landscape and portrait.
const SIZES = [
  [2048, 1536],
  [3264, 2448],
  [4032, 3024],
  [3024, 4032],
];

/** A photo-like JPEG: smooth noise (compresses like a photo, not like a flat test card). */
async function basePhoto([width, height], seed) {
  const small = await sharp({
    create: {
      width: width / 16,
      height: height / 16,
      channels: 3,
      noise: { type: 'gaussian', mean: 110 + seed * 10, sigma: 60 },
    },
  })
    .png()
    .toBuffer();
  return sharp(small).resize(width, height, { kernel: 'cubic' }).jpeg({ quality: 88 }).toBuffer();
}

const V3 = 'application/vnd.service.accessors.user.v3+json';

async function api(server, method, path, body, type = V3) {
  const res = await fetch(`${server.origin}/api${path}`, {
    method,
    headers: {
      authorization: `Basic ${server.token}`,
      ...(body && type ? { 'content-type': type } : {}),
    },
    body,
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? undefined : res.json();
}

/** The baseline for one photo: sharp alone, three POSTs, one PUT. */
async function baselineOne(server, file, userId) {
  const { data, info } = await sharp(file, { limitInputPixels: 100_000_000 })
    .autoOrient()
    .resize(2048, 2048, { fit: 'inside', withoutEnlargement: true })
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  const raw = { raw: { width: info.width, height: info.height, channels: info.channels } };
  const cover = (side) => ({
    fit: 'cover',
    position: sharp.strategy.attention,
    width: side,
    height: side,
  });
  const outputs = await Promise.all([
    sharp(data, raw).jpeg({ quality: 85 }).toBuffer(),
    sharp(data, raw).resize(cover(200)).jpeg({ quality: 85 }).toBuffer(),
    sharp(data, raw).resize(cover(48)).jpeg({ quality: 85 }).toBuffer(),
  ]);
  const media = await Promise.all(
    outputs.map((buf, i) => {
      const form = new FormData();
      form.append('metaData', new Blob(['{"type":"image"}'], { type: 'application/json' }));
      form.append('file', new Blob([buf], { type: 'image/jpeg' }), `b.${i}.jpg`);
      return api(server, 'POST', '/media', form, null);
    }),
  );
  const [original, thumb, icon] = media.map((m) => ({ url: m.resourceInfo.url }));
  await api(
    server,
    'PUT',
    `/users/${userId}`,
    JSON.stringify({ profile: { avatar: { original, thumb, icon } } }),
  );
}

async function pool(items, fn) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

export async function run() {
  heading(
    `users avatar sync: ${N} phone JPEGs (3-12 MP), vs sharp alone + raw POSTs (same server)`,
  );
  const dir = tempDir('roster-bench-avatars-');
  const configDir = join(dir, 'config');
  const server = await serve(join(dir, 'data'), configDir);
  try {
    const bases = await Promise.all(SIZES.map((size, i) => basePhoto(size, i)));
    const cliDir = join(dir, 'cli');
    const baseDir = join(dir, 'baseline');
    mkdirSync(cliDir);
    mkdirSync(baseDir);
    const baseline = [];
    for (let i = 0; i < N; i++) {
      // Each photo its own bytes (a different hash), as a real folder's are.
      const bytes = Buffer.concat([bases[i % bases.length], Buffer.from(`#${i}`)]);
      const cliUser = await api(
        server,
        'POST',
        '/users',
        JSON.stringify({ email: `c${i}@bench.example`, sendMail: false }),
      );
      const baseUser = await api(
        server,
        'POST',
        '/users',
        JSON.stringify({ email: `b${i}@bench.example`, sendMail: false }),
      );
      writeFileSync(join(cliDir, `c${i}@bench.example.jpg`), bytes);
      const file = join(baseDir, `b${i}.jpg`);
      writeFileSync(file, bytes);
      baseline.push({ file, id: baseUser.id });
      void cliUser;
    }

    const t0 = performance.now();
    await pool(baseline, (b) => baselineOne(server, b.file, b.id));
    const baseSeconds = (performance.now() - t0) / 1000;

    const {
      out,
      err,
      seconds: cliSeconds,
    } = await exec(
      // The command as npm installs it: the launcher (its malloc arena limit) on this node.
      LAUNCHER,
      ['users', 'avatar', 'sync', cliDir, '--concurrency', String(CONCURRENCY), '-o', 'json'],
      { ROSTER_CONFIG_DIR: configDir, NO_COLOR: '1', ...launcherEnv(rssPreload(dir)) },
    );
    const rssMb = peakRssMb(err) ?? 0;
    const set = JSON.parse(out).filter((r) => r.result === 'set').length;
    if (set !== N) throw new Error(`avatar sync set ${set} of ${N}`);

    const rate = (s) => N / s;
    line(
      'baseline: sharp + raw POSTs + PUT',
      `${fmt(rate(baseSeconds), 1)} photos/s (${fmt(baseSeconds, 1)} s)`,
    );
    line(
      'roster users avatar sync (start-up included)',
      `${fmt(rate(cliSeconds), 1)} photos/s (${fmt(cliSeconds, 1)} s)`,
    );
    line(
      'roster / baseline throughput (goal >= 0.7x)',
      `${(baseSeconds / cliSeconds).toFixed(2)}x`,
    );
    // glibc's arena limit moves the peak most (bench/README.md): the launcher's 2, or as set.
    const arenas = process.env.MALLOC_ARENA_MAX ?? '2';
    line(`roster peak RSS (goal < 200 MB), MALLOC_ARENA_MAX=${arenas}`, `${fmt(rssMb, 0)} MB`);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
