/**
 * Header names → import fields. Names are field paths (`externalId`, `config.locale`,
 * `profile.firstName`, `profile.<customFieldId>`) or common aliases compared without case,
 * spaces, `_`, `-` and `.` ("First Name", "E-Mail", "Identifier"); `--map` covers the rest.
 */

import { fromCsvCell } from '../contract/csv-cell.js';
import { forbiddenKeyText, isForbiddenKey } from '../contract/safe-keys.js';
import { customFieldIdSchema } from '../contract/schemas.js';
import { safeText } from '../contract/text-safe.js';
import {
  isWriteOnly,
  USER_FIELDS,
  type UserField,
  type UserFieldName,
} from '../contract/user-fields.js';
import { ImportError, importUsageError } from './errors.js';
import { headerKey, normalizeHeader, type Preset, type StatusColumn } from './presets.js';
import { shellWord } from './shell-word.js';

/** Every named import column, in template/export order. */
export const FIELDS = USER_FIELDS.map((f) => f.name);
export type NamedField = UserFieldName;

/** Write-only fields: the service never returns them, so they are sent on create only. */
export const CREATE_ONLY: ReadonlySet<string> = new Set(
  USER_FIELDS.filter(isWriteOnly).map((f) => f.name),
);

/** Fields the export writes and the import never writes back (each with why): the user-field table's `csvReadOnly`. */
export const READ_ONLY: ReadonlyMap<string, string> = new Map(
  USER_FIELDS.flatMap((f: UserField) =>
    f.csvReadOnly === undefined ? [] : [[f.name, f.csvReadOnly] as const],
  ),
);

/** The columns an import writes: a template's header. */
export const WRITTEN_FIELDS = FIELDS.filter((f) => !READ_ONLY.has(f));

export const CUSTOM_PREFIX = 'profile.';

const ALIASES: [string, NamedField][] = USER_FIELDS.flatMap((f: UserField & { name: NamedField }) =>
  (f.aliases ?? []).map((alias) => [alias, f.name] as [string, NamedField]),
);

const normalize = normalizeHeader;

const BY_NAME = new Map<string, NamedField>([
  ...FIELDS.map((f) => [normalize(f), f] as const),
  ...FIELDS.map((f) => [normalize(`profile.${f}`), f] as const),
  ...ALIASES,
]);

/** The field a header name stands for, or undefined when it is not a known one. */
export function fieldOf(name: string): string | undefined {
  const trimmed = name.trim();
  const named = BY_NAME.get(normalize(trimmed));
  if (named) return named;
  if (trimmed.toLowerCase().startsWith(CUSTOM_PREFIX)) {
    const id = trimmed.slice(CUSTOM_PREFIX.length);
    // Refused, not skipped as unknown (--ignore-unknown too): it could only be an attack.
    if (isForbiddenKey(id))
      throw importUsageError(`column '${safeText(trimmed)}': ${forbiddenKeyText(id)}`);
    if (customFieldIdSchema.safeParse(id).success) return `${CUSTOM_PREFIX}${id}`;
  }
  return undefined;
}

/** `--map "Personalnummer=externalId"` values → header → field (null = ignore the column). */
export function parseMaps(values: string[]): Map<string, string | null> {
  const maps = new Map<string, string | null>();
  for (const value of values) {
    const at = value.lastIndexOf('=');
    const source = value.slice(0, at).trim();
    const target = value.slice(at + 1).trim();
    if (at <= 0 || !source) {
      throw importUsageError(
        `--map expects "Header=field" (e.g. "Personalnummer=externalId"), got '${value}'`,
      );
    }
    const field = target === '' ? null : fieldOf(target);
    if (field === undefined) {
      throw importUsageError(
        `--map ${value}: '${target}' is not a field; use one of ${FIELDS.join(', ')} or profile.<customFieldId> (an empty target ignores the column)`,
      );
    }
    maps.set(source, field);
  }
  return maps;
}

/** Column index → field for `--map`: a source names the header spelled so, else written alike. */
function mapsByColumn(header: string[], maps: Map<string, string | null>, file: string) {
  const byColumn = new Map<number, string | null>();
  for (const [source, field] of maps) {
    let at = header.flatMap((h, i) => (h.trim() === source ? [i] : []));
    if (at.length === 0)
      at = header.flatMap((h, i) => (normalize(h) === normalize(source) ? [i] : []));
    if (at.length === 0) {
      throw new ImportError(
        `--map ${source}=…: ${file} has no column '${source}' (its columns: ${header.join(', ')})`,
      );
    }
    for (const i of at) byColumn.set(i, field);
  }
  return byColumn;
}

/** A status column of the file, and which of its values mark a leaver. */
export interface StatusRule {
  index: number;
  name: string;
  leaver?: ReadonlySet<string>;
  active?: ReadonlySet<string>;
}

/** How a file's columns are read. */
export interface Layout {
  /** Each column's field (null = ignored). */
  fields: (string | null)[];
  /** Column indices in reading order: where several columns feed one field, the first non-empty wins. */
  order: number[];
  /** Status columns: a row is a leaver when any of them says so. */
  status: StatusRule[];
  /** Columns of read-only fields (READ_ONLY), accepted and not read: header name and field. */
  readOnly?: { column: string; field: string }[];
  /** A column --ignore-unknown skipped that looks like who is active (a status column). */
  ignoredStatus?: string;
}

/** A layout of plain columns: one per field, read left to right, no status column. */
export const plainLayout = (fields: (string | null)[]): Layout => ({
  fields,
  order: fields.map((_, i) => i),
  status: [],
});

const statusValue = (cell: string) => fromCsvCell(cell.trim()).trim().toLowerCase();

/** Why the row is a leaver (e.g. "suspended=True"), or undefined when it is not one. */
export function leaverOf(cells: string[], layout: Layout): string | undefined {
  for (const rule of layout.status) {
    const cell = cells[rule.index] ?? '';
    const value = statusValue(cell);
    const leaves = rule.active ? !rule.active.has(value) : rule.leaver!.has(value);
    if (leaves) return `${rule.name}=${cell.trim() || '(empty)'}`;
  }
  return undefined;
}

export interface HeaderOptions {
  file: string;
  maps?: Map<string, string | null>;
  ignoreUnknown?: boolean;
  /** The format's table: its columns are read, every other column is ignored (unless --map). */
  preset?: Preset;
  /** `--status-column` with `--active-values`: replaces the preset's status columns. */
  status?: StatusColumn;
}

/** Column index → field by the preset's table, with each column's rank of precedence. */
function presetColumns(header: string[], preset: Preset) {
  const byKey = new Map<string, { field: string | null; rank: number }>();
  preset.columns.forEach(([name, field], rank) => {
    const key = normalize(name);
    if (!byKey.has(key)) byKey.set(key, { field, rank });
  });
  return header.map((h) => byKey.get(headerKey(preset, h)));
}

function statusRules(header: string[], opts: HeaderOptions): StatusRule[] {
  const wanted = opts.status ? [opts.status] : (opts.preset?.status ?? []);
  const rules: StatusRule[] = [];
  for (const s of wanted) {
    const key = opts.status ? normalize(s.column) : headerKey(opts.preset, s.column);
    let index = header.findIndex((h) => h.trim() === s.column);
    if (index < 0)
      index = header.findIndex((h) =>
        opts.status ? normalize(h) === key : headerKey(opts.preset, h) === key,
      );
    if (index < 0) {
      if (opts.status) {
        throw new ImportError(
          `--status-column ${s.column}: ${opts.file} has no such column (its columns: ${header.join(', ')})`,
        );
      }
      continue;
    }
    const set = (values?: readonly string[]) =>
      values ? new Set(values.map((v) => v.trim().toLowerCase())) : undefined;
    rules.push({
      index,
      name: header[index]!,
      ...(s.active ? { active: set(s.active) } : { leaver: set(s.leaver) }),
    });
  }
  return rules;
}

/** Header names (normalised) of columns that say whether someone still works there. */
const STATUS_LIKE =
  /^((worker|employee|employment|account|job|hr)?status|active|isactive|enabled|accountenabled|state)$/;

/** Each header column's field and the status columns; throws listing unknown or duplicate columns. */
export function resolveHeader(header: string[], opts: HeaderOptions): Layout {
  const unknown: string[] = [];
  let statusLike: string | undefined;
  const seen = new Map<string, string[]>();
  const mapped = mapsByColumn(header, opts.maps ?? new Map(), opts.file);
  const status = statusRules(header, opts);
  const statusColumns = new Set(status.map((s) => s.index));
  const { preset } = opts;
  const byPreset = preset ? presetColumns(header, preset) : [];
  // --map wins: a field it names is no longer read from the preset's columns.
  const mappedFields = new Set([...mapped.values()].filter((f) => f !== null));
  const rank: number[] = [];
  const fields = header.map((name, i) => {
    rank[i] = i;
    let field: string | null | undefined;
    if (mapped.has(i)) field = mapped.get(i)!;
    else if (preset) {
      const known = byPreset[i];
      field = known && !mappedFields.has(known.field ?? '') ? known.field : null;
      if (known) rank[i] = known.rank - header.length; // preset order first
    } else if (statusColumns.has(i)) field = null;
    else field = fieldOf(name);
    if (field === undefined) {
      unknown.push(name === '' ? `(column ${i + 1} has no name)` : `'${safeText(name)}'`);
      if (STATUS_LIKE.test(normalize(name))) statusLike ??= name;
      return null;
    }
    if (field !== null) seen.set(field, [...(seen.get(field) ?? []), name || `column ${i + 1}`]);
    return field;
  });
  // A preset ranks the columns it knows; columns of one field otherwise are an error.
  const duplicates = [...seen].filter(
    ([field, names]) =>
      names.length > 1 &&
      (!preset ||
        fields.some((f, i) => f === field && (mapped.has(i) || byPreset[i] === undefined))),
  );
  if (duplicates.length > 0) {
    const list = duplicates.map(([f, names]) => `${f} (${names.map((n) => `'${n}'`).join(', ')})`);
    throw new ImportError(
      `${opts.file}: several columns map to the same field: ${list.join('; ')}; remove one, or ignore it with --map "Header="`,
      'usage',
    );
  }
  if (unknown.length > 0 && !opts.ignoreUnknown) {
    // A column saying who is active is the one an HR export must not lose: name its flag.
    const leavers = statusLike
      ? ` '${statusLike}' looks like who is active: read it with --status-column ${shellWord(statusLike)} --active-values <values meaning active>, or leavers are imported like everyone else.`
      : '';
    throw new ImportError(
      `${opts.file}: unknown column${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}. ` +
        `Known: ${FIELDS.join(', ')}, profile.<customFieldId>. Map one with --map "Header=field", or skip them with --ignore-unknown.${leavers}`,
      'usage',
    );
  }
  const order = header.map((_, i) => i).sort((a, b) => rank[a]! - rank[b]! || a - b);
  const ignored = statusLike === undefined ? {} : { ignoredStatus: statusLike };
  // Read-only columns are accepted (an export imports again unchanged) and never read.
  const readOnly = header.flatMap((column, i) => {
    const field = fields[i];
    return field && READ_ONLY.has(field) ? [{ column, field }] : [];
  });
  if (readOnly.length === 0) return { fields, order, status, ...ignored };
  const read = fields.map((f) => (f !== null && READ_ONLY.has(f) ? null : f));
  return { fields: read, order, status, readOnly, ...ignored };
}
