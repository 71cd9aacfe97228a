// `npm run bench`: every benchmark in turn. Figures and ratios against baselines measured in the
// same run; nothing here passes or fails.
import { existsSync } from 'node:fs';

const benches = [
  './users.bench.mjs',
  './startup.bench.mjs',
  './media.bench.mjs',
  './media-cli.bench.mjs',
  './s3.bench.mjs',
  './import.bench.mjs',
  './xlsx.bench.mjs',
  './table.bench.mjs',
  './avatars.bench.mjs',
  './scim.bench.mjs',
  // Before/after needs BENCH_EVENTS_BASE (bench/baseline.sh); the rest runs on its own.
  './events.bench.mjs',
  './webhooks.bench.mjs',
  // Needs Patroni, etcd and haproxy (scripts/failover-test-server.sh); without them it says so.
  './failover.bench.mjs',
  // Needs a store seeded by seed.mjs (MILLION_DATA); without one it prints how.
  './million.bench.mjs',
  './million-export.bench.mjs',
];
const only = process.argv.slice(2);
for (const path of benches) {
  if (only.length > 0 && !only.some((o) => path.includes(o))) continue;
  if (!existsSync(new URL(path, import.meta.url))) continue;
  const mod = await import(path);
  if (typeof mod.run === 'function') await mod.run();
}
