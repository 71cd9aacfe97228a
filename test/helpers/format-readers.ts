/**
 * How a test reads each output format back: a reader per name of the formatter registry (the
 * Record's type makes a new format bring its reader), refusing text of another format, so
 * output that came out in the wrong one (a dry run's plan as CSV under another -o) fails.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { parse as parseYaml } from 'yaml';
import type { Format } from '../../src/cli/output/formats/index.js';

const isJson = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

const lines = (text: string) => text.split('\n').slice(0, -1);

function refuse(format: Format, text: string, why: string): never {
  throw new Error(`not -o ${format} (${why}):\n${text.slice(0, 400)}`);
}

/** Each format's text → what it holds; throws when the text is not that format's. */
export const READERS: Record<Format, (text: string) => unknown> = {
  json: (text) => JSON.parse(text),
  ndjson: (text) =>
    lines(text).map((line) => {
      if (/^\s/.test(line)) refuse('ndjson', text, 'an indented line');
      const value = JSON.parse(line);
      if (value === null || typeof value !== 'object') refuse('ndjson', text, 'not an object');
      return value;
    }),
  yaml: (text) => {
    if (isJson(text)) refuse('yaml', text, 'JSON');
    const value = parseYaml(text);
    // CSV, a table or lines read as one YAML string.
    if (value === null || typeof value !== 'object') refuse('yaml', text, 'no YAML collection');
    return value;
  },
  csv: (text) => {
    if (isJson(text) || text.trim() === '') refuse('csv', text, 'JSON or nothing');
    const records: string[][] = parseCsv(text); // Throws on rows of another width.
    if ((records[0]?.length ?? 0) < 2) refuse('csv', text, 'fewer than two columns');
    return records;
  },
  table: (text) => {
    if (isJson(text) || text.trim() === '') refuse('table', text, 'JSON or nothing');
    if (lines(text).every((l) => l.includes(','))) refuse('table', text, 'CSV');
    return lines(text);
  },
  ids: (text) => {
    const ids = lines(text);
    if (ids.length === 0 || ids.some((id) => !/^[\w-]+$/.test(id))) refuse('ids', text, 'not ids');
    return ids;
  },
};
