/**
 * A dry run's plan for programs, whole: `-o ndjson` one object per row then `{"summary": …}`,
 * `-o json` `{"rows": […], "summary": …}` (`-o yaml` the same in YAML), `-o csv` one line per change
 * (`line,key,action,id,field,from,to,error`; a row that changes nothing is one line too).
 */
import { Writable } from 'node:stream';
import type { PlannedRow } from '../../../../import/planned.js';
import type { Summary } from '../../../../import/types.js';
import type { IO } from '../../../context.js';
import { type Format, listWriter } from '../../../output/render.js';
import { safeJson } from '../../../output/text-safe.js';

export interface PlanWriter {
  write(row: PlannedRow): Promise<void>;
  end(summary: Summary): Promise<void>;
}

/** One line of the CSV form: a row and one of its changes. */
interface ChangeLine {
  row: PlannedRow;
  field?: string;
}

const CSV_COLUMNS = [
  { header: 'line', value: (l: ChangeLine) => l.row.line },
  { header: 'key', value: (l: ChangeLine) => l.row.key },
  { header: 'action', value: (l: ChangeLine) => l.row.action },
  { header: 'id', value: (l: ChangeLine) => l.row.id },
  { header: 'field', value: (l: ChangeLine) => l.field },
  { header: 'from', value: (l: ChangeLine) => (l.field ? l.row.changes![l.field]!.from : '') },
  { header: 'to', value: (l: ChangeLine) => (l.field ? l.row.changes![l.field]!.to : '') },
  { header: 'error', value: (l: ChangeLine) => l.row.error },
];

/** What is gathered before a write to stdout (one write per row cost a syscall per row). */
const BATCH = 64 * 1024;

/**
 * An IO whose stdout gathers the plan's text and passes it on in batches; `end` passes on the
 * rest. Waiting for the real stdout to drain holds the writes back, so memory stays bounded.
 */
function batching(io: IO): { io: IO; end(): Promise<void> } {
  let pending = '';
  const flush = () => {
    const text = pending;
    pending = '';
    return text ? write(io, text) : Promise.resolve();
  };
  const stdout = new Writable({
    decodeStrings: false,
    write(chunk: string, _encoding, done) {
      pending += chunk;
      if (pending.length < BATCH) done();
      else flush().then(() => done(), done);
    },
  });
  return {
    io: { ...io, stdout },
    end: async () => {
      await new Promise<void>((resolve) => stdout.end(resolve));
      await flush();
    },
  };
}

const write = (io: IO, text: string) =>
  new Promise<void>((resolve) => {
    if (io.stdout.write(text)) resolve();
    else io.stdout.once('drain', resolve);
  });
const print = (io: IO, value: unknown) => write(io, `${safeJson(JSON.stringify(value))}\n`);

/** The writer for this format; undefined for a table (the person's view: format.ts). */
export async function planWriter(io: IO, format: Format): Promise<PlanWriter | undefined> {
  if (format === 'table') return undefined;
  const batch = batching(io);
  const writer = await unbatched(batch.io, format);
  return {
    write: (row) => writer.write(row),
    end: async (summary) => {
      await writer.end(summary);
      await batch.end();
    },
  };
}

async function unbatched(io: IO, format: Exclude<Format, 'table'>): Promise<PlanWriter> {
  if (format === 'json') {
    // Streamed, so a 100,000-row plan is never held whole: {"rows": [ … ], "summary": { … }}.
    let n = 0;
    const indent = (value: unknown) =>
      safeJson(JSON.stringify(value, null, 2)).replace(/\n/g, '\n    ');
    return {
      write: (row) => write(io, `${n++ === 0 ? '{\n  "rows": [\n' : ',\n'}    ${indent(row)}`),
      end: (summary) =>
        write(
          io,
          `${n === 0 ? '{\n  "rows": [' : '\n  ]'}${n === 0 ? ']' : ''},\n  "summary": ${safeJson(JSON.stringify(summary, null, 2)).replace(/\n/g, '\n  ')}\n}\n`,
        ),
    };
  }
  if (format === 'ndjson') {
    return { write: (row) => print(io, row), end: (summary) => print(io, { summary }) };
  }
  if (format === 'yaml') {
    // The JSON form's shape, streamed the same way: each row an item of `rows`.
    const { toYaml } = await import('../../../output/yaml.js');
    let n = 0;
    const item = (row: PlannedRow) => `  ${toYaml([row]).replace(/\n(?=.)/g, '\n  ')}`;
    return {
      write: (row) => write(io, `${n++ === 0 ? 'rows:\n' : ''}${item(row)}`),
      end: (summary) => write(io, `${n === 0 ? 'rows: []\n' : ''}${toYaml({ summary })}`),
    };
  }
  const out = await listWriter<ChangeLine>(io, {
    format: 'csv',
    columns: CSV_COLUMNS,
    json: (l) => l,
  });
  return {
    async write(row) {
      const fields = Object.keys(row.changes ?? {});
      if (fields.length === 0) await out.write({ row });
      for (const field of fields) await out.write({ row, field });
    },
    end: async () => {
      await out.end();
    },
  };
}
