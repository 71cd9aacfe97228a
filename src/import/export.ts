/**
 * `users export`: the branch's users in the import's columns, so that importing the file again
 * changes nothing. Custom profile fields become `profile.<id>` columns (all of them, sorted),
 * which is why the users are read before the header is written.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import { toCsvCell } from '../contract/csv-cell.js';
import type { ListableStatus } from '../contract/user.js';
import { writeWhole } from '../files/destination.js';
import { CREATE_ONLY, CUSTOM_PREFIX, FIELDS, WRITTEN_FIELDS } from './columns.js';
import { exportValues, type Values } from './fields.js';
import type { ImportClient } from './types.js';

export const DEFAULT_EXPORT_STATUSES: ListableStatus[] = ['activated', 'pending'];

/** The columns of an export: a template's without secrets, and with the read-only ones. */
export const EXPORT_FIELDS = FIELDS.filter((f) => !CREATE_ONLY.has(f));

export interface ExportOptions {
  statuses?: ListableStatus[];
  out: Writable;
  delimiter?: string;
  /** A UTF-8 BOM first, for Excel. */
  bom?: boolean;
}

export interface ExportResult {
  users: number;
  /** Users without an externalId / email: a re-import cannot match them by that key. */
  withoutExternalId: number;
  withoutEmail: number;
}

/** Missing first, then case-insensitively, then exactly: the order the service's sort gave. */
function byKey(a: string | null | undefined, b: string | null | undefined): number {
  if (!a || !b) return (a ? 1 : 0) - (b ? 1 : 0);
  const folded = a.toLowerCase().localeCompare(b.toLowerCase(), 'en');
  return folded || (a < b ? -1 : a > b ? 1 : 0);
}

export async function exportUsers(
  client: ImportClient,
  opts: ExportOptions,
): Promise<ExportResult> {
  const rows: Values[] = [];
  const custom = new Set<string>();
  const statuses = opts.statuses ?? DEFAULT_EXPORT_STATUSES;
  // The default sort only: the real platform documents name keys alone. The stable order
  // (externalId, then email; missing first) is made here, from the rows held anyway.
  for await (const user of client.iterateUsers({ status: statuses }, 1000)) {
    const values = exportValues(user);
    for (const f of Object.keys(values)) if (f.startsWith(CUSTOM_PREFIX)) custom.add(f);
    rows.push(values);
  }
  rows.sort((a, b) => byKey(a.externalId, b.externalId) || byKey(a.email, b.email));
  const columns = [...EXPORT_FIELDS, ...[...custom].sort()];
  const line = (cells: unknown[]) => stringify([cells], { delimiter: opts.delimiter ?? ',' });
  const write = async (text: string) => {
    if (!opts.out.write(text)) await once(opts.out, 'drain');
  };
  await write(`${opts.bom ? '\ufeff' : ''}${line(columns)}`);
  for (const values of rows) {
    await write(line(columns.map((c) => toCsvCell(String(values[c] ?? '')))));
  }
  return {
    users: rows.length,
    withoutExternalId: rows.filter((r) => !r.externalId).length,
    withoutEmail: rows.filter((r) => !r.email).length,
  };
}

/**
 * Exports to a file through a temporary one, renamed when complete: a failed export never leaves
 * a truncated file for a scheduled import to pick up.
 */
export async function exportToFile(
  client: ImportClient,
  path: string,
  opts: Omit<ExportOptions, 'out'>,
): Promise<ExportResult> {
  return writeWhole(path, (out) => exportUsers(client, { ...opts, out }));
}

/** `users import --template`: the header row with every known column. */
export const templateHeader = (delimiter = ',') => stringify([[...WRITTEN_FIELDS]], { delimiter });
