// Object store and replicas bench (issue 12). Every baseline is measured in this run; nothing is
// asserted.
//  1. One 1 GiB upload by `curl -F` to `roster serve --blobs s3://…` (radosgw), against the AWS
//     SDK's `Upload` of the same file straight to radosgw (same part size and queue as serve),
//     with serve's peak RSS; then the `/cdn` download of it by curl against the SDK's GetObject.
//  2. GET by id through haproxy with one and with two replicas on one PostgreSQL, and the CPU
//     each request costs (replicas, haproxy), which is what predicts scaling on more cores.
// Needs a radosgw (scripts/s3-test-server.sh start DIR prints the variables; memstore needs
// ROSTER_S3_TEST_BYTES ≥ 4 GiB for a 1 GiB file: serve and the SDK each store one), PostgreSQL
// (ROSTER_BENCH_DATABASE or ROSTER_TEST_DATABASE) and haproxy; each part says when it is skipped.
// Standalone: `node bench/s3.bench.mjs` (after `npm run build`). BENCH_UPLOAD_MIB sizes the file.
import { spawn } from 'node:child_process';
import { createReadStream, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  benchDatabase,
  cpuMs,
  exec,
  fmt,
  freePort,
  heading,
  line,
  load,
  serve,
  sparse,
  stop,
  tempDir,
  vm,
  watchRss,
} from './lib.mjs';

const MIB = 1024 * 1024;
const UPLOAD_MIB = Number(process.env.BENCH_UPLOAD_MIB ?? 1024);
const PART = 5 * MIB;
const QUEUE = 4;
const LOAD_MS = Number(process.env.BENCH_LOAD_MS ?? 8000);
const CONNECTIONS = 16;

const rate = (bytes, s) => `${fmt(bytes / MIB / s, 0)} MiB/s (${fmt(s, 2)} s)`;

async function s3Client() {
  const s3 = await import('@aws-sdk/client-s3');
  const client = new s3.S3Client({
    endpoint: process.env.ROSTER_S3_ENDPOINT,
    forcePathStyle: true,
    region: process.env.AWS_REGION ?? 'us-east-1',
  });
  return { s3, client };
}

const curlUpload = (server, file) =>
  exec('curl', [
    '-sS',
    '--fail-with-body',
    '-F',
    'metaData={"type":"raw"};type=application/json',
    '-F',
    `file=@${file}`,
    '-H',
    `Authorization: Basic ${server.token}`,
    `${server.origin}/api/media`,
  ]);

const remove = (server, id) =>
  fetch(`${server.origin}/api/media/${id}`, {
    method: 'DELETE',
    headers: { authorization: `Basic ${server.token}` },
  });

async function objectStore(dir) {
  heading(`object store: one ${fmt(UPLOAD_MIB, 0)} MiB file through serve and straight to radosgw`);
  if (!process.env.ROSTER_S3_ENDPOINT) {
    line('skipped', 'no ROSTER_S3_ENDPOINT: scripts/s3-test-server.sh start DIR prints it');
    return;
  }
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const { s3, client } = await s3Client();
  const { Upload } = await import('@aws-sdk/lib-storage');
  const bucket = `roster-bench-${process.pid}`;
  await client.send(new s3.CreateBucketCommand({ Bucket: bucket }));
  const bytes = UPLOAD_MIB * MIB;
  const file = join(dir, 'big.bin');
  sparse(file, bytes);
  const server = await serve(join(dir, 'data'), join(dir, 'config'), [
    '--blobs',
    `s3://${bucket}/media`,
  ]);
  try {
    // SDK baseline: the same multipart upload serve makes, from this process.
    let t0 = performance.now();
    await new Upload({
      client,
      params: { Bucket: bucket, Key: 'sdk-big', Body: createReadStream(file) },
      partSize: PART,
      queueSize: QUEUE,
    }).done();
    const sdkUp = (performance.now() - t0) / 1000;

    // A small upload first: modules loaded on first use (previews, the S3 client) count as idle.
    const small = join(dir, 'small.bin');
    writeFileSync(small, 'warm-up');
    const warm = JSON.parse((await curlUpload(server, small)).out);
    await remove(server, warm.id);
    await new Promise((r) => setTimeout(r, 200));
    const idle = vm(server.pid, 'VmRSS');
    const stopWatch = watchRss(server.pid);
    const up = await curlUpload(server, file);
    const peak = stopWatch();
    const medium = JSON.parse(up.out);
    if (medium.resourceInfo?.bytes !== bytes) throw new Error(`upload: ${up.out}`);

    t0 = performance.now();
    const got = await client.send(new s3.GetObjectCommand({ Bucket: bucket, Key: 'sdk-big' }));
    await pipeline(got.Body, new Writable({ write: (_c, _e, done) => done() }));
    const sdkDown = (performance.now() - t0) / 1000;
    const down = await exec('curl', ['-sS', '--fail', '-o', '/dev/null', medium.resourceInfo.url]);

    line(
      'AWS SDK Upload straight to radosgw (lib-storage, 5 MiB parts, 4 at a time)',
      rate(bytes, sdkUp),
    );
    line('curl -F to roster serve --blobs (sent on as it arrives)', rate(bytes, up.seconds));
    line('serve / SDK (goal ≥ 0.6x)', `${(sdkUp / up.seconds).toFixed(2)}x`);
    line('server RSS idle (after a small warm-up upload)', `${fmt(idle, 0)} MB`);
    line('server peak RSS during the upload (goal < 150 MB)', `${fmt(peak, 0)} MB`);
    line('AWS SDK GetObject straight from radosgw', rate(bytes, sdkDown));
    line('curl of the /cdn URL through serve', rate(bytes, down.seconds));
    line('/cdn / SDK', `${(sdkDown / down.seconds).toFixed(2)}x`);

    await remove(server, medium.id);
  } finally {
    await server.stop();
    const listed = await client.send(new s3.ListObjectsV2Command({ Bucket: bucket }));
    for (const o of listed.Contents ?? []) {
      await client.send(new s3.DeleteObjectCommand({ Bucket: bucket, Key: o.Key }));
    }
    await client.send(new s3.DeleteBucketCommand({ Bucket: bucket }));
    client.destroy();
  }
}

async function replicas(dir) {
  heading('replicas: GET by id through haproxy, one replica vs two (one PostgreSQL)');
  const haproxy = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((p) => existsSync(p));
  const db = await benchDatabase();
  if (!db || !haproxy) {
    line('skipped', db ? 'no haproxy (apt-get install haproxy)' : 'no ROSTER_BENCH_DATABASE');
    await db?.drop();
    return;
  }
  const servers = [];
  let proxy;
  try {
    const ports = [await freePort(), await freePort()];
    // One config dir: the first replica saves the admin token there, the second finds it.
    const config = join(dir, 'replica-config');
    for (const [i, port] of ports.entries()) {
      servers.push(
        await serve(join(dir, `replica-${i}`), config, [
          '--database',
          db.url,
          '--port',
          String(port),
        ]),
      );
    }
    const token = servers[0].token;
    const created = await fetch(`${servers[0].origin}/api/users`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${token}`,
        'content-type': 'application/vnd.service.accessors.user.v3+json',
      },
      body: JSON.stringify({ email: 'bench@example.com', externalId: 'bench', sendMail: false }),
    });
    if (created.status !== 201) throw new Error(`seed user: ${created.status}`);
    const [one, two] = [await freePort(), await freePort()];
    const cfg = join(dir, 'haproxy.cfg');
    const backend = (name, list) =>
      `backend ${name}\n  balance roundrobin\n${list.map((p, i) => `  server r${i} 127.0.0.1:${p}`).join('\n')}\n`;
    writeFileSync(
      cfg,
      `global\n  maxconn 1024\ndefaults\n  mode http\n  timeout connect 1s\n  timeout client 30s\n  timeout server 30s\n` +
        `frontend one\n  bind 127.0.0.1:${one}\n  default_backend one\n` +
        `frontend two\n  bind 127.0.0.1:${two}\n  default_backend two\n` +
        backend('one', ports.slice(0, 1)) +
        backend('two', ports),
    );
    proxy = spawn(haproxy, ['-f', cfg, '-db'], { stdio: 'ignore' });
    await new Promise((r) => setTimeout(r, 500));

    const request = () => ({
      method: 'GET',
      path: '/api/users/bench',
      headers: {
        authorization: `Basic ${token}`,
        accept: 'application/vnd.service.accessors.user.v3+json',
      },
    });
    const measure = async (origin) => {
      // The same load unmeasured first: V8 optimises serve's code only after a while.
      await load({ origin, connections: CONNECTIONS, durationMs: 2000, request });
      const before = servers.map((s) => cpuMs(s.pid));
      const proxyBefore = cpuMs(proxy.pid);
      const r = await load({ origin, connections: CONNECTIONS, durationMs: LOAD_MS, request });
      const replicaUs =
        (servers.reduce((sum, s, i) => sum + cpuMs(s.pid) - before[i], 0) * 1000) / r.requests;
      const proxyUs = ((cpuMs(proxy.pid) - proxyBefore) * 1000) / r.requests;
      return { ...r, replicaUs, proxyUs };
    };
    const direct = await measure(servers[0].origin);
    const single = await measure(`http://127.0.0.1:${one}`);
    const double = await measure(`http://127.0.0.1:${two}`);
    const show = (label, r) =>
      line(
        label,
        `${fmt(r.rps, 0)} req/s, p99 ${fmt(r.p99, 1)} ms, ${fmt(r.replicaUs, 0)} µs serve + ${fmt(r.proxyUs, 0)} µs haproxy CPU/req${r.errors ? `, ${r.errors} errors` : ''}`,
      );
    show('one replica, no balancer', direct);
    show('haproxy → one replica', single);
    show('haproxy → two replicas', double);
    line('two / one replica behind haproxy', `${(double.rps / single.rps).toFixed(2)}x`);
    line(
      'req/s per core of serve (1 s / CPU per request, one replica)',
      `${fmt(1e6 / single.replicaUs, 0)} (two replicas sharing 2 cores: ${fmt(1e6 / double.replicaUs, 0)})`,
    );
    console.log(
      '  On 2 cores the load generator, haproxy, PostgreSQL and the replicas share the CPU, so a\n' +
        '  second replica shows the overhead of balancing, not scaling; with a core per replica,\n' +
        '  throughput grows with replicas until PostgreSQL or the balancer is the limit: about\n' +
        '  cores × the per-core figure above, less haproxy’s share.',
    );
  } finally {
    if (proxy) proxy.kill('SIGTERM');
    for (const s of servers) await stop(s.child);
    await db.drop();
  }
}

export async function run() {
  const dir = tempDir('roster-bench-s3-');
  await objectStore(dir);
  await replicas(dir);
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
