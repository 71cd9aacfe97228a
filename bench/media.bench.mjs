// Media service bench (issue 3): server memory and throughput on uploads, preview time per type.
// Every baseline is measured in this run; nothing is asserted.
//  1. One 1 GiB upload by `curl -F` to `roster serve`: server peak RSS (polled every 20 ms)
//     against its idle RSS, and curl's throughput against two baselines: curl -F to a Node
//     server that only drains the body (what curl and loopback allow), and `cp` + fsync of the
//     same bytes on the same disk. The source file is sparse (reads cost nothing; the server still
//     parses, writes and fsyncs every byte, and stores no less for zeros than for photos).
//  2. Preview time with the built previews module for a 24-MP JPEG, a 50-page PDF and a 1-minute
//     1080p video, against sharp's metadata() and ffprobe.
//  3. Server peak RSS while 8 uploads of 200 MB run at once.
// Standalone: `node bench/media.bench.mjs` (after `npm run build`). BENCH_UPLOAD_MIB sizes the
// big upload (default 1024, the server's default limit).
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import sharp from 'sharp';
import { exec, fmt, heading, line, ROOT, serve, sparse, tempDir, vm, watchRss } from './lib.mjs';

const MIB = 1024 * 1024;
const UPLOAD_MIB = Number(process.env.BENCH_UPLOAD_MIB ?? 1024);
const PARALLEL = 8;
const PARALLEL_MB = 200;
const RUNS = 3;

const curlForm = (file) => [
  '-sS',
  '--fail-with-body',
  '-F',
  'metaData={"type":"raw"};type=application/json',
  '-F',
  `file=@${file}`,
];

/** `curl -F` of one file to POST /api/media; checks the stored size (the caller deletes it). */
async function curlUpload(server, file, bytes) {
  const { out, seconds } = await exec('curl', [
    ...curlForm(file),
    '-H',
    `Authorization: Basic ${server.token}`,
    `${server.origin}/api/media`,
  ]);
  const medium = JSON.parse(out);
  if (medium.resourceInfo?.bytes !== bytes) throw new Error(`upload of ${file}: ${out}`);
  return { seconds, id: medium.id };
}

/** A Node http server in this process that reads and drops every body: curl's own ceiling. */
async function drainSink() {
  const sink = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('{}'));
  });
  await new Promise((resolve) => sink.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${sink.address().port}/`,
    close: () => new Promise((resolve) => sink.close(resolve)),
  };
}

async function remove(server, id) {
  const res = await fetch(`${server.origin}/api/media/${id}`, {
    method: 'DELETE',
    headers: { authorization: `Basic ${server.token}` },
  });
  if (res.status !== 204) throw new Error(`DELETE /media/${id} answered ${res.status}`);
}

/** A fresh server, warmed by one small upload so lazily loaded modules count as idle. */
async function warmServer(dir, name) {
  const server = await serve(join(dir, `data-${name}`), join(dir, `config-${name}`));
  const small = join(dir, `warm-${name}.bin`);
  sparse(small, 1024);
  await remove(server, (await curlUpload(server, small, 1024)).id);
  await new Promise((r) => setTimeout(r, 200));
  return { server, idle: vm(server.pid, 'VmRSS') };
}

async function bigUpload(dir) {
  const bytes = UPLOAD_MIB * MIB;
  heading(`media: one ${fmt(UPLOAD_MIB, 0)} MiB upload by curl -F (sparse source file)`);
  const file = join(dir, 'big.bin');
  sparse(file, bytes);
  const copy = join(dir, 'big-copy.bin');
  const cp = await exec('cp', ['--sparse=never', file, copy]);
  const fsync = await exec('sync', [copy]);
  rmSync(copy);
  const disk = cp.seconds + fsync.seconds;

  const sink = await drainSink();
  const transport = await exec('curl', [...curlForm(file), sink.origin]);
  await sink.close();

  const { server, idle } = await warmServer(dir, 'big');
  try {
    const stopWatch = watchRss(server.pid);
    const { seconds, id } = await curlUpload(server, file, bytes);
    const peak = stopWatch();
    const hwm = vm(server.pid, 'VmHWM');
    await remove(server, id);
    const rate = (s) => `${fmt(bytes / MIB / s, 0)} MiB/s (${fmt(s, 2)} s)`;
    line('disk baseline: cp --sparse=never + fsync, same disk', rate(disk));
    line('transport baseline: curl -F to a draining Node sink', rate(transport.seconds));
    line('curl -F to roster serve (received, written, fsynced)', rate(seconds));
    line('upload / transport baseline', `${(transport.seconds / seconds).toFixed(2)}x`);
    line('upload / disk baseline', `${(disk / seconds).toFixed(2)}x`);
    line('server RSS idle (after a 1 KiB warm-up upload)', `${fmt(idle, 0)} MB`);
    line('server peak RSS during the upload (goal < 150 MB)', `${fmt(peak, 0)} MB`);
    line(
      'server growth over idle / VmHWM since start',
      `${fmt(peak - idle, 0)} MB / ${fmt(hwm, 0)} MB`,
    );
  } finally {
    await server.stop();
    rmSync(file);
  }
}

async function parallelUploads(dir) {
  const bytes = PARALLEL_MB * 1000 * 1000;
  heading(`media: ${PARALLEL} uploads of ${PARALLEL_MB} MB at once by curl -F (sparse source)`);
  const file = join(dir, 'medium.bin');
  sparse(file, bytes);
  const { server, idle } = await warmServer(dir, 'parallel');
  try {
    const stopWatch = watchRss(server.pid);
    const t0 = performance.now();
    const done = await Promise.all(
      Array.from({ length: PARALLEL }, () => curlUpload(server, file, bytes)),
    );
    const seconds = (performance.now() - t0) / 1000;
    const peak = stopWatch();
    for (const { id } of done) await remove(server, id);
    const total = (PARALLEL * bytes) / MIB;
    line(
      `${PARALLEL} × curl -F, aggregate`,
      `${fmt(total / seconds, 0)} MiB/s (${fmt(seconds, 2)} s)`,
    );
    line('server RSS idle (after a 1 KiB warm-up upload)', `${fmt(idle, 0)} MB`);
    line(`server peak RSS, ${PARALLEL} uploads in flight`, `${fmt(peak, 0)} MB`);
    line('server growth over idle', `${fmt(peak - idle, 0)} MB`);
  } finally {
    await server.stop();
    rmSync(file);
  }
}

/** 6000×4000 gradient with noise, as a camera JPEG at quality 85. */
async function makeJpeg(path) {
  const [w, h] = [6000, 4000];
  const px = Buffer.allocUnsafe(w * h * 3);
  let seed = 0x2545f491;
  for (let y = 0, i = 0; y < h; y++) {
    for (let x = 0; x < w; x++, i += 3) {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      const n = (seed & 31) - 16;
      px[i] = Math.max(0, Math.min(255, ((x * 255) / w + n) | 0));
      px[i + 1] = Math.max(0, Math.min(255, ((y * 255) / h + n) | 0));
      px[i + 2] = Math.max(0, Math.min(255, (((x + y) >> 4) & 255) + n));
    }
  }
  await sharp(px, { raw: { width: w, height: h, channels: 3 } })
    .jpeg({ quality: 85 })
    .toFile(path);
}

/** A hand-written PDF: `pages` A4 pages, each with a heading and 40 lines in Helvetica. */
function makePdf(path, pages) {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    null,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  const kids = [];
  for (let p = 1; p <= pages; p++) {
    const lines = Array.from(
      { length: 40 },
      (_, l) => `(Line ${l + 1} of page ${p}: the quick brown fox jumps over the lazy dog.) Tj T*`,
    );
    const text = `BT /F1 24 Tf 72 770 Td (Page ${p} of ${pages}) Tj /F1 11 Tf 14 TL 0 -30 Td ${lines.join(' ')} ET\n0.2 0.4 0.8 RG 2 w 72 60 451 0 re S\n`;
    const content = objects.length + 2;
    kids.push(`${objects.length + 1} 0 R`);
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents ${content} 0 R >>`,
      `<< /Length ${Buffer.byteLength(text)} >>\nstream\n${text}endstream`,
    );
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${pages} >>`;
  let pdf = '%PDF-1.4\n';
  const offsets = objects.map((body, i) => {
    const at = Buffer.byteLength(pdf);
    pdf += `${i + 1} 0 obj\n${body}\nendobj\n`;
    return at;
  });
  const xref = Buffer.byteLength(pdf);
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  pdf += offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  writeFileSync(path, pdf, 'latin1');
}

const makeVideo = (path) =>
  exec('ffmpeg', [
    '-nostdin',
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    'testsrc2=size=1920x1080:rate=30:duration=60',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-pix_fmt',
    'yuv420p',
    '-y',
    path,
  ]);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The first call (lazy imports included) and the median of RUNS more, in ms. */
async function timeIt(fn) {
  const t0 = performance.now();
  await fn();
  const first = performance.now() - t0;
  const warm = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await fn();
    warm.push(performance.now() - t);
  }
  const ms = (x) => fmt(x, x < 10 ? 1 : 0);
  return `${ms(median(warm))} ms median of ${RUNS} (first ${ms(first)} ms)`;
}

async function previews(dir) {
  heading('media previews: built previews module, sniffType + describeAndPreview');
  const { sniffType, describeAndPreview } = await import(`${ROOT}dist/server/previews/index.js`);
  const previewPath = join(dir, 'preview.jpg');
  const preview = (path) => async () => {
    const described = await describeAndPreview(path, await sniffType(path), {
      previewPath,
      timeoutMs: 60_000,
    });
    if (!described.preview) throw new Error(`no preview for ${path}`);
  };
  const generated = (label, seconds, path) =>
    line(
      `(generated ${label} in ${fmt(seconds, 2)} s)`,
      `${fmt(readFileSync(path).length / MIB, 1)} MiB`,
    );

  const jpeg = join(dir, 'photo.jpg');
  let t = performance.now();
  await makeJpeg(jpeg);
  generated('6000×4000 JPEG q85', (performance.now() - t) / 1000, jpeg);
  line('JPEG 24 MP preview', await timeIt(preview(jpeg)));
  line('JPEG baseline: sharp metadata()', await timeIt(() => sharp(jpeg).metadata()));

  const pdf = join(dir, 'document.pdf');
  t = performance.now();
  makePdf(pdf, 50);
  generated('50-page PDF', (performance.now() - t) / 1000, pdf);
  line('PDF 50 pages preview (page 1, worker thread)', await timeIt(preview(pdf)));

  if (spawnSync('ffmpeg', ['-version']).error || spawnSync('ffprobe', ['-version']).error) {
    line('video 1080p 60 s preview', 'skipped: ffmpeg/ffprobe not on PATH');
    return;
  }
  const video = join(dir, 'video.mp4');
  generated('1080p 60 s H.264 (ultrafast)', (await makeVideo(video)).seconds, video);
  line('video 1080p 60 s preview (ffprobe + one frame)', await timeIt(preview(video)));
  line(
    'video baseline: ffprobe -show_format',
    await timeIt(() => exec('ffprobe', ['-v', 'error', '-show_format', '-of', 'json', video])),
  );
}

export async function run() {
  const dir = tempDir('roster-bench-media-');
  try {
    await bigUpload(dir);
    await previews(dir);
    await parallelUploads(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
