// CLI start-up bench (issue 14): every one-shot command against bare `node -e 0` and against the
// floor (a script that loads only undici's Pool and request API, with --liftoff-only, and does
// the same GET), all measured in this run: runs alternate between commands, medians of RUNS.
// Goals: <= 2.0x node -e 0 (or within 1.2x of the floor when the floor is above 1.7x) and
// <= 80 MB peak RSS; --version and --help <= 1.5x. Wall time is the goal; CPU time (user +
// system, 10 ms ticks) is printed too, as it moves less when other work shares the machine.
// BENCH_BASELINE=/path/to/bin/roster.js adds each roster command run by that build as well.
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, fmt, heading, line, ROOT, serve, tempDir } from './lib.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const TIME = '/usr/bin/time';

/** One run: wall ms, and peak RSS in MB and CPU ms when /usr/bin/time is there. */
function once(args, env) {
  const timed = existsSync(TIME);
  const t0 = performance.now();
  const r = spawnSync(
    timed ? TIME : process.execPath,
    timed ? ['-f', '%M %U %S', process.execPath, ...args] : args,
    {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${args.join(' ')} failed: ${r.stderr}`);
  if (!timed) return { ms };
  const [kb, user, system] = String(r.stderr).trim().split('\n').at(-1).split(' ').map(Number);
  return { ms, rss: kb / 1024, cpu: (user + system) * 1000 };
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

    // kind: what the goal is for. 'instant': --version/--help (<= 1.5x); 'one-shot': the
    // commands that talk to the service (<= 2.0x, or 1.2x the floor, and <= 80 MB).
    const roster = (line, kind = 'one-shot', label = `roster ${line}`) => ({
      label,
      args: [BIN, ...line.split(' ')],
      env,
      kind,
    });
    const commands = [
      { label: 'node -e 0', args: ['-e', '0'], env: {} },
      {
        label: 'floor: undici Pool + GET, --liftoff-only',
        args: [floorScript(dataDir), server.origin, `/api/users/${user.id}`, server.token],
        env: {},
      },
      roster('--version', 'instant'),
      roster('--help', 'instant'),
      roster('users show emp-1 -o json'),
      roster('users list --limit 1 -o json'),
      roster('media list -o json'),
      roster(`media show ${medium.id} -o json`, 'one-shot', 'roster media show ID -o json'),
      roster('check'),
    ];
    // BENCH_BASELINE=<another build's bin/roster.js>: each roster command again with that build,
    // in the same alternation, so a change's before and after are measured in one run.
    const baseline = process.env.BENCH_BASELINE;
    if (baseline) {
      for (const c of commands.filter((c) => c.args[0] === BIN)) {
        commands.push({
          ...c,
          label: `${c.label} [baseline]`,
          args: [baseline, ...c.args.slice(1)],
        });
      }
    }
    for (const c of commands) c.runs = [];
    for (let i = 0; i < RUNS; i++) for (const c of commands) c.runs.push(once(c.args, c.env));
    const of = (c, key) => c.runs.map((r) => r[key]).filter((v) => v !== undefined);
    const bare = median(of(commands[0], 'ms'));
    const bareCpu = median(of(commands[0], 'cpu'));
    const floor = median(of(commands[1], 'ms')) / bare;
    const goal = floor > 1.7 ? 1.2 * floor : 2.0;
    const x = (n) => `${n.toFixed(2)}x`;
    const over = [];
    for (const c of commands) {
      const ms = median(of(c, 'ms'));
      const cpu = of(c, 'cpu');
      const mb = of(c, 'rss').length ? Math.max(...of(c, 'rss')) : undefined;
      if (
        (c.kind === 'instant' && ms / bare > 1.5) ||
        (c.kind === 'one-shot' && (ms / bare > goal || mb > 80))
      )
        over.push(c.label);
      const figures = [
        `${fmt(ms)} ms`,
        c === commands[0] ? '' : `${x(ms / bare)} node -e 0`,
        c.kind ? `${x(ms / bare / floor)} the floor` : '',
        cpu.length ? `cpu ${fmt(median(cpu), 0)} ms (${x(median(cpu) / bareCpu)})` : '',
        mb === undefined ? '' : `${fmt(mb, 0)} MB peak`,
      ];
      line(c.label, figures.filter(Boolean).join('  '));
    }
    line(
      'goal for one-shot commands',
      `<= ${x(goal)}${floor > 1.7 ? ' (1.2x the floor)' : ''} and <= 80 MB; --version/--help <= 1.50x`,
    );
    line('over the goal in this run', over.length ? over.join(', ') : 'none');
  } finally {
    await server.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
