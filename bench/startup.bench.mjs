// CLI start-up bench (issue 4): `roster --version` and `roster users list --limit 1` wall time
// against bare `node -e 0`, measured in the same run (goal for --version: <= 1.5x).
import { spawnSync } from 'node:child_process';
import { BIN, fmt, heading, line, serve, tempDir } from './lib.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);

function median(args, env = {}) {
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    times.push(performance.now() - t0);
    if (r.status !== 0) throw new Error(`${args.join(' ')} failed: ${r.stderr}`);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

export async function run() {
  heading(`CLI start-up (median of ${RUNS} runs)`);
  const bare = median(['-e', '0']);
  const version = median([BIN, '--version']);
  line('node -e 0', `${fmt(bare)} ms`);
  line(
    'roster --version',
    `${fmt(version)} ms  (${fmt(version / bare, 2)}x bare node, goal <= 1.5x)`,
  );

  const configDir = tempDir('roster-bench-config-');
  const server = await serve(tempDir('roster-bench-data-'), configDir);
  try {
    const list = median([BIN, 'users', 'list', '--limit', '1', '-o', 'json'], {
      ROSTER_CONFIG_DIR: configDir,
    });
    line(
      'roster users list --limit 1 (real server)',
      `${fmt(list)} ms  (${fmt(list / bare, 2)}x bare node)`,
    );
  } catch (err) {
    line('roster users list --limit 1', `not measured: ${err.message.split('\n')[0]}`);
  } finally {
    await server.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
