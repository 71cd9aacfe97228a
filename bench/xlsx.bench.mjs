// .xlsx import and export (issue 42): `npm run bench -- xlsx` or `node bench/xlsx.bench.mjs`
// (needs `npm run build`). Each
// measurement runs in a child process of its own, its peak RSS the kernel's (maxRSS):
// - the parse step: 100,000 rows of the same data as CSV and as a workbook through the
//   import's row source (dist/import/read.js openCsv: sniffing, xlsx-guard's directory check,
//   our own sheet reader on saxes), rows/s and the ratio (goal ≥ 0.5× CSV); the workbook is
//   written as Excel lays one out (every text a shared string, the table after the sheet).
//   XLSX_ROUNDS=N measures it N times (CSV, then the workbook, each round) and prints medians;
//   XLSX_BEFORE=DIR (a copy of another build's dist/, inside the repository so that its
//   imports resolve) alternates that build with this one in every round: a before → after
//   comparison in one run, on a machine whose load moves;
// - the export's writer: 500,000 users through exportToFile (the same sort runs as the CSV
//   export, then exceljs's streaming WorkbookWriter) from an in-process source of users, so
//   the figure is the writer's and not the HTTP client's (measured by million-export).
// - the whole `users import --dry-run` of those 100,000 rows against `roster serve`, CSV and
//   workbook: the built CLI's peak RSS (goal < 300 MB).
// XLSX_ROWS / XLSX_EXPORT_USERS change the sizes; XLSX_PARTS=parse, =import or =export runs one.
// Figures only.
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = new URL('..', import.meta.url).pathname;
const ROWS = Number(process.env.XLSX_ROWS ?? 100_000);
const USERS = Number(process.env.XLSX_EXPORT_USERS ?? 500_000);
const HEADER = ['externalId', 'email', 'firstName', 'lastName', 'department', 'phoneNumber'];
const row = (i) => [
  String(i).padStart(6, '0'),
  `person${i}@example.com`,
  `First${i}`,
  `Last${i % 5000}`,
  ['Sales', 'Engineering', 'Finance', 'HR'][i % 4],
  `+49 89 ${1000000 + i}`,
];

async function writeInputs(dir) {
  const csv = join(dir, 'people.csv');
  const out = createWriteStream(csv);
  out.write(`${HEADER.join(',')}\n`);
  for (let i = 0; i < ROWS; i++) out.write(`${row(i).join(',')}\n`);
  await new Promise((resolve) => out.end(resolve));
  const { default: ExcelJS } = await import('exceljs');
  const xlsx = join(dir, 'people.xlsx');
  const book = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: xlsx, useSharedStrings: true });
  const sheet = book.addWorksheet('People');
  sheet.addRow(HEADER).commit();
  for (let i = 0; i < ROWS; i++) sheet.addRow(row(i)).commit();
  sheet.commit();
  await book.commit();
  return { csv, xlsx };
}

/** The child's part: one measurement, printed as JSON. */
async function child(mode, file, dist = `${ROOT}dist`) {
  const started = performance.now();
  let rows = 0;
  if (mode === 'parse') {
    const { openCsv } = await import(`${dist}/import/read.js`);
    const input = await openCsv(file);
    for await (const _ of input.records) rows++;
  } else {
    const { exportToFile } = await import(`${ROOT}dist/import/export.js`);
    const client = {
      async *iterateUsers() {
        for (let i = 0; i < USERS; i++) {
          const [externalId, email, firstName, lastName, department, phoneNumber] = row(i);
          // The current (v3) shape, as the client's pages give it (contract/user-fields.ts).
          yield {
            id: `u${i}`,
            externalId,
            email: { value: email },
            role: 'reader',
            config: { locale: 'de_DE' },
            profile: { firstName, lastName, department, phoneNumber },
          };
        }
      },
    };
    rows = (await exportToFile(client, file, { format: mode === 'export-csv' ? 'csv' : 'xlsx' }))
      .users;
  }
  const seconds = (performance.now() - started) / 1000;
  const { maxRSS, userCPUTime, systemCPUTime } = process.resourceUsage();
  // CPU seconds too: on a shared machine they move less with the load than the wall time.
  const cpu = (userCPUTime + systemCPUTime) / 1e6;
  process.stdout.write(JSON.stringify({ rows, seconds, cpu, rssMb: maxRSS / 1024 }));
}

function measure(mode, file, dist) {
  // With the V8 flag the CLI's import and export set (src/cli/memory.ts, bulk memory mode).
  const flags = ['--heap-growing-percent=10'];
  const args = [...flags, new URL(import.meta.url).pathname, mode, file, ...(dist ? [dist] : [])];
  const r = spawnSync(process.execPath, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${mode} ${file}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

const fmt = (n) => Math.round(n).toLocaleString('en');
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** The parse step, XLSX_ROUNDS times, of this build and of XLSX_BEFORE's if given. */
function parseRounds(csv, xlsx, size) {
  const rounds = Number(process.env.XLSX_ROUNDS ?? 1);
  const builds = [['this build', `${ROOT}dist`]];
  if (process.env.XLSX_BEFORE) builds.unshift(['before', process.env.XLSX_BEFORE]);
  const seen = new Map(
    builds.map(([name]) => [
      name,
      { csv: [], xlsx: [], ratio: [], cpuRatio: [], rss: [], csvRss: [] },
    ]),
  );
  for (let round = 1; round <= rounds; round++) {
    for (const [name, dist] of builds) {
      const a = measure('parse', csv, dist);
      const b = measure('parse', xlsx, dist);
      const s = seen.get(name);
      s.csv.push(a.rows / a.seconds);
      s.xlsx.push(b.rows / b.seconds);
      s.ratio.push(a.seconds / b.seconds);
      s.cpuRatio.push(a.cpu / b.cpu);
      s.rss.push(b.rssMb);
      s.csvRss.push(a.rssMb);
      if (rounds > 1 || builds.length > 1) {
        console.log(
          `round ${round}, ${name}: CSV ${fmt(a.rows / a.seconds)} rows/s, xlsx ${fmt(b.rows / b.seconds)} rows/s (${fmt(b.rssMb)} MB): ${(a.seconds / b.seconds).toFixed(2)}×, CPU ${(a.cpu / b.cpu).toFixed(2)}×`,
        );
      }
    }
  }
  for (const [name] of builds) {
    const s = seen.get(name);
    const of = rounds > 1 ? `, median of ${rounds}` : '';
    console.log(`${name}${of}:`);
    console.log(
      `  parse ${fmt(ROWS)} rows, CSV  (${size(csv)}): ${fmt(median(s.csv))} rows/s, peak RSS ${fmt(median(s.csvRss))} MB`,
    );
    console.log(
      `  parse ${fmt(ROWS)} rows, xlsx (${size(xlsx)}): ${fmt(median(s.xlsx))} rows/s, peak RSS ${fmt(median(s.rss))} MB`,
    );
    console.log(
      `  xlsx / CSV parse rate: ${median(s.ratio).toFixed(2)}× (goal ≥ 0.5×); by CPU time ${median(s.cpuRatio).toFixed(2)}×`,
    );
  }
}

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), 'roster-xlsx-bench-'));
  try {
    const size = (f) => `${(statSync(f).size / 2 ** 20).toFixed(1)} MB`;
    const parts = process.env.XLSX_PARTS ?? 'parse,import,export';
    console.log(`## xlsx (node ${process.version})`);
    if (parts.includes('parse')) {
      const { csv, xlsx } = await writeInputs(dir);
      parseRounds(csv, xlsx, size);
    }
    if (parts.includes('import')) {
      // The whole command: `users import --dry-run` of the same 100,000 new rows on `roster
      // serve`, CSV and workbook, the built CLI's peak RSS (VmHWM through rssPreload).
      const { BIN, exec, peakRssMb, rssPreload, serve } = await import('./lib.mjs');
      const { csv, xlsx } = await writeInputs(dir);
      const configDir = join(dir, 'config');
      const server = await serve(join(dir, 'data'), configDir);
      const preload = rssPreload(dir);
      try {
        for (const file of [csv, xlsx]) {
          const { err, seconds } = await exec(
            process.execPath,
            [
              '--import',
              preload,
              BIN,
              'users',
              'import',
              file,
              '--dry-run',
              '--no-send-mail',
              '-o',
              'json',
            ],
            { ROSTER_CONFIG_DIR: configDir, NO_COLOR: '1' },
          );
          console.log(
            `users import --dry-run, ${fmt(ROWS)} new rows, ${file.endsWith('.csv') ? 'CSV ' : 'xlsx'}: ${seconds.toFixed(1)} s, peak RSS ${fmt(peakRssMb(err))} MB (goal < 300 MB)`,
          );
        }
      } finally {
        await server.stop();
      }
    }
    if (parts.includes('export')) {
      const c = measure('export-csv', join(dir, 'export.csv'));
      console.log(
        `export ${fmt(c.rows)} users to CSV (the baseline): ${fmt(c.rows / c.seconds)} users/s, ${c.seconds.toFixed(1)} s, peak RSS ${fmt(c.rssMb)} MB`,
      );
      const out = join(dir, 'export.xlsx');
      const e = measure('export', out);
      console.log(
        `export ${fmt(e.rows)} users to xlsx (${size(out)}): ${fmt(e.rows / e.seconds)} users/s, ${e.seconds.toFixed(1)} s, peak RSS ${fmt(e.rssMb)} MB (goal < 300 MB)`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Run directly: the whole bench, or (as measure() spawns it) one measurement.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (['parse', 'export', 'export-csv'].includes(process.argv[2])) {
    await child(process.argv[2], process.argv[3], process.argv[4]);
  } else await run();
}
