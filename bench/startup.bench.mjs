// CLI start-up bench (issue 14): every one-shot command against bare `node -e 0` and against the
// floor (a script that loads only undici's Pool and request API, with --liftoff-only, and does
// the same GET), all measured in this run: runs alternate between commands, medians of RUNS.
// Goals: <= 2.0x node -e 0 (or within 1.2x of the floor when the floor is above 1.7x) and
// <= 80 MB peak RSS; --version and --help <= 1.5x.
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, fmt, heading, line, ROOT, serve, tempDir } from './lib.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const TIME = '/usr/bin/time';

/** One run: wall ms, and peak RSS in MB when /usr/bin/time is there. */
function once(args, env) {
  const timed = existsSync(TIME);
  const t0 = performance.now();
  const r = spawnSync(
    timed ? TIME : process.execPath,
    timed ? ['-f', '%M', process.execPath, ...args] : args,
    {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${args.join(' ')} failed: ${r.stderr}`);
  const rss = timed ? Number(String(r.stderr).trim().split('\n').at(-1)) / 1024 : undefined;
  return { ms, rss };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The floor: undici's Pool and request API only, --liftoff-only, one GET. */
function floorScript(dir) {
  const path = join(dir, 'floor.cjs');
  writeFileSync(
    path,
    `require('v8').setFlagsFromString('--liftoff-only');
const Dispatcher = require(${JSON.stringify(`${ROOT}node_modules/undici/lib/dispatcher/dispatcher.js`)});
Object.assign(Dispatcher.prototype, require(${JSON.stringify(`${ROOT}node_modules/undici/lib/api/index.js`)}));
const Pool = require(${JSON.stringify(`${ROOT}node_modules/undici/lib/dispatcher/pool.js`)});
const [origin, path, token] = process.argv.slice(2);
const pool = new Pool(origin);
pool.request({ path, method: 'GET', headers: { authorization: 'Basic ' + token } })
  .then((r) => r.body.text()).then(() => pool.close());
`,
  );
  return path;
}

export async function run() {
  heading(`CLI start-up (median of ${RUNS} alternating runs each; peak RSS from ${TIME})`);
  const dataDir = tempDir('roster-bench-data-');
  const configDir = tempDir('roster-bench-config-');
  const server = await serve(dataDir, configDir);
  const env = { ROSTER_CONFIG_DIR: configDir, NO_COLOR: '1' };
  try {
    const auth = { authorization: `Basic ${server.token}` };
    const user = await fetch(`${server.origin}/api/users`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/vnd.service.accessors.user.v3+json' },
      body: JSON.stringify({ externalId: 'emp-1', email: 'emp1@example.com', sendMail: false }),
    }).then((r) => r.json());
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('hello')]), 'hello.txt');
    const medium = await fetch(`${server.origin}/api/media`, {
      method: 'POST',
      headers: auth,
      body: form,
    }).then((r) => r.json());

    const commands = [
      ['node -e 0', ['-e', '0'], {}],
      [
        'floor: undici Pool + GET, --liftoff-only',
        [floorScript(dataDir), server.origin, `/api/users/${user.id}`, server.token],
        {},
      ],
      ['roster --version', [BIN, '--version'], env],
      ['roster --help', [BIN, '--help'], env],
      ['roster users show emp-1 -o json', [BIN, 'users', 'show', 'emp-1', '-o', 'json'], env],
      [
        'roster users list --limit 1 -o json',
        [BIN, 'users', 'list', '--limit', '1', '-o', 'json'],
        env,
      ],
      ['roster media list -o json', [BIN, 'media', 'list', '-o', 'json'], env],
      ['roster media show ID -o json', [BIN, 'media', 'show', medium.id, '-o', 'json'], env],
      ['roster check', [BIN, 'check'], env],
    ];
    const times = commands.map(() => []);
    const rss = commands.map(() => []);
    for (let i = 0; i < RUNS; i++) {
      commands.forEach(([, args, e], c) => {
        const r = once(args, e);
        times[c].push(r.ms);
        if (r.rss !== undefined) rss[c].push(r.rss);
      });
    }
    const bare = median(times[0]);
    const floor = median(times[1]);
    const goal =
      floor / bare > 1.7 ? `<= ${fmt(1.2 * (floor / bare), 2)}x (1.2x the floor)` : '<= 2.0x';
    commands.forEach(([label], c) => {
      const ms = median(times[c]);
      const mb = rss[c].length ? `${fmt(Math.max(...rss[c]), 0)} MB peak` : '';
      const ratio = c === 0 ? '' : `${fmt(ms / bare, 2)}x node -e 0`;
      line(label, `${fmt(ms)} ms  ${ratio}  ${mb}`);
    });
    line('goal for one-shot commands', `${goal}, <= 80 MB; --version/--help <= 1.5x`);
  } finally {
    await server.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
