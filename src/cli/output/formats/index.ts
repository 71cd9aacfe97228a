/**
 * The output formats: one list, one module each. A new format is a name here, a case in
 * `formatterOf` (the type checker refuses the switch until it has one) and its module beside
 * this one; `-o`, its help and completion, and every command's output follow.
 */
import { csv } from './csv.js';
import type { Formatter } from './formatter.js';
import { ids } from './ids.js';
import { json } from './json.js';
import { ndjson } from './ndjson.js';
import { table } from './table.js';
import { yaml } from './yaml.js';

/** In the order `-o`'s help lists them. */
export const FORMATS = ['table', 'json', 'ndjson', 'csv', 'yaml', 'ids'] as const;
export type Format = (typeof FORMATS)[number];

export function formatterOf(format: Format): Formatter {
  switch (format) {
    case 'table':
      return table;
    case 'json':
      return json;
    case 'ndjson':
      return ndjson;
    case 'csv':
      return csv;
    case 'yaml':
      return yaml;
    case 'ids':
      return ids;
    default: {
      const unknown: never = format;
      throw new Error(`no formatter for -o ${String(unknown)}`);
    }
  }
}

/** For a person at a terminal: where a command adds spinners, notes and its own summaries. */
export const forPeople = (format: Format) => formatterOf(format).forPeople;

export type { Column, Envelope, Formatter, Rows, Shape } from './formatter.js';
