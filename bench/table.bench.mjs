// Table rendering (issue: 12,500 users as a table took 21 s against 2.8 s as CSV, with the
// event loop blocked). Renders the same 10,000 users as a table and as CSV through the built
// CLI's renderers, in one run, and prints the figures and the ratio.
import { Writable } from 'node:stream';
import { ROOT } from './lib.mjs';

const ROWS = 10_000;

function rows() {
  return Array.from({ length: ROWS }, (_, i) => ({
    id: `65f${String(i).padStart(21, '0')}`,
    externalId: `emp-${i}`,
    email: `user.number.${i}@a-rather-long-company-domain.example.com`,
    firstName: ['Ann', 'Bob', 'Zoë', '李'][i % 4],
    lastName: `Lastname-${i}`,
    role: 'reader',
    status: i % 3 ? 'activated' : 'pending',
  }));
}

function sink() {
  let bytes = 0;
  const stream = new Writable({
    write(chunk, _enc, done) {
      bytes += chunk.length;
      done();
    },
  });
  return { stream, bytes: () => bytes };
}

async function time(format, data, columns) {
  const { renderList } = await import(`${ROOT}dist/cli/output/render.js`);
  const out = sink();
  const io = {
    stdout: out.stream,
    stderr: out.stream,
    stdoutIsTTY: true,
    color: false,
    columns: 120,
  };
  const cols = columns.map((c) => ({ header: c, value: (r) => r[c] }));
  // The longest the event loop went without a turn while rendering: what Ctrl-C waits for.
  let longest = 0;
  let last = performance.now();
  const probe = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  const t0 = performance.now();
  await renderList(io, format, data, cols);
  const ms = performance.now() - t0;
  clearInterval(probe);
  longest = Math.max(longest, performance.now() - last);
  return { ms, bytes: out.bytes(), longest };
}

export async function run() {
  const data = rows();
  const columns = Object.keys(data[0]);
  await time('table', data.slice(0, 200), columns); // warm up
  const results = {};
  for (const format of ['csv', 'table', 'csv', 'table']) {
    const r = await time(format, data, columns);
    results[format] = !results[format] || r.ms < results[format].ms ? r : results[format];
  }
  console.log(`\n== table rendering: ${ROWS} users, 120 columns wide (best of 2)`);
  for (const [format, r] of Object.entries(results)) {
    console.log(
      `${format.padEnd(6)} ${r.ms.toFixed(0).padStart(6)} ms  ${(r.bytes / 1e6).toFixed(1)} MB  longest event-loop block ${r.longest.toFixed(0)} ms`,
    );
  }
  console.log(`table / csv: ${(results.table.ms / results.csv.ms).toFixed(2)}×`);
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
