/**
 * Parsers of the import and export flags, for commander: each throws InvalidArgumentError, so
 * a bad value is a usage error (exit 2) before anything is read or sent. Kept free of the
 * engine's heavier modules (csv-parse), since the CLI loads this file at start-up.
 */
import { TextDecoder } from 'node:util';
import { InvalidArgumentError } from 'commander';
import { splitList } from '../../../../contract/list.js';
import type { DeactivateLimit } from '../../../../import/sync.js';

/** `,` `;` `|` …, or `tab` / `\t`. */
export function parseDelimiter(flag: string): string {
  if (flag === 'tab' || flag === '\\t' || flag === '\t') return '\t';
  if (flag.length !== 1 || /["\r\n]/.test(flag)) {
    throw new InvalidArgumentError(
      `expected one character such as ',' ';' '|' or 'tab', got '${flag}'`,
    );
  }
  return flag;
}

/** Any label TextDecoder knows (utf-8, windows-1252, latin1, utf-16le, …). */
export function parseEncoding(flag: string): string {
  try {
    new TextDecoder(flag);
  } catch {
    throw new InvalidArgumentError(
      `unknown encoding '${flag}'; use utf-8, windows-1252, macintosh, latin1 or utf-16le`,
    );
  }
  return flag;
}

/** `25` → at most 25 users; `10%` → at most 10% of the branch's activated and pending users. */
export function parseMaxDeactivate(value: string): DeactivateLimit {
  const m = /^(\d+(?:\.\d+)?)(%?)$/.exec(value.trim());
  const n = Number(m?.[1]);
  if (!m || (m[2] === '' && !Number.isInteger(n)) || (m[2] === '%' && n > 100)) {
    throw new InvalidArgumentError(
      `expected a count such as 25 or a percentage such as 10%, got '${value}'`,
    );
  }
  return m[2] ? { percent: n } : { count: n };
}

/** `--concurrency`: 1 to 64 requests at a time. */
export function parseConcurrency(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 64) {
    throw new InvalidArgumentError(`expected a whole number from 1 to 64, got '${value}'`);
  }
  return n;
}

/** `--skip-lines`: a whole number of lines, 0 or more. */
export function parseSkipLines(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 1000) {
    throw new InvalidArgumentError(`expected a number of lines from 0 to 1000, got '${value}'`);
  }
  return Number(value);
}

/** `--header-row`: a workbook's row number, 1 to Excel's 1,048,576. */
export function parseHeaderRow(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 1_048_576) {
    throw new InvalidArgumentError(`expected a row number from 1 to 1048576, got '${value}'`);
  }
  return Number(value);
}

/** A comma-separated list of values (`--active-values Active,Onboarding`); padding trimmed. */
export function parseValues(value: string): string[] {
  const values = splitList(value);
  if (values.length === 0) {
    throw new InvalidArgumentError('expected one or more values, comma-separated');
  }
  return values;
}
