/**
 * Header names → import fields. Names are field paths (`externalId`, `config.locale`,
 * `profile.firstName`, `profile.<customFieldId>`) or common aliases compared without case,
 * spaces, `_`, `-` and `.` ("First Name", "E-Mail", "Identifier"); `--map` covers the rest.
 */

import { customFieldIdSchema } from '../contract/schemas.js';
import { ImportError, importUsageError } from './errors.js';

/** Every named import column, in template/export order. */
export const FIELDS = [
  'externalId',
  'email',
  'userName',
  'firstName',
  'lastName',
  'role',
  'locale',
  'position',
  'department',
  'location',
  'phoneNumber',
  'publicEmailAddress',
  'secret',
  'recoveryCode',
] as const;
export type NamedField = (typeof FIELDS)[number];

/** Write-only fields: the service never returns them, so they are sent on create only. */
export const CREATE_ONLY: ReadonlySet<string> = new Set(['secret', 'recoveryCode']);

export const CUSTOM_PREFIX = 'profile.';

const ALIASES: Record<string, NamedField> = {
  identifier: 'externalId',
  externalidentifier: 'externalId',
  employeeid: 'externalId',
  employeenumber: 'externalId',
  personnelnumber: 'externalId',
  staffid: 'externalId',
  emailaddress: 'email',
  mail: 'email',
  login: 'userName',
  loginname: 'userName',
  givenname: 'firstName',
  forename: 'firstName',
  surname: 'lastName',
  familyname: 'lastName',
  configlocale: 'locale',
  language: 'locale',
  jobtitle: 'position',
  dept: 'department',
  office: 'location',
  phone: 'phoneNumber',
  telephone: 'phoneNumber',
  mobile: 'phoneNumber',
  publicemail: 'publicEmailAddress',
  password: 'secret',
  initialpassword: 'secret',
};

const normalize = (name: string) => name.toLowerCase().replace(/[\s_.-]+/g, '');

const BY_NAME = new Map<string, NamedField>([
  ...FIELDS.map((f) => [normalize(f), f] as const),
  ...FIELDS.map((f) => [normalize(`profile.${f}`), f] as const),
  ...Object.entries(ALIASES),
]);

/** The field a header name stands for, or undefined when it is not a known one. */
export function fieldOf(name: string): string | undefined {
  const trimmed = name.trim();
  const named = BY_NAME.get(normalize(trimmed));
  if (named) return named;
  if (trimmed.toLowerCase().startsWith(CUSTOM_PREFIX)) {
    const id = trimmed.slice(CUSTOM_PREFIX.length);
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

export interface HeaderOptions {
  file: string;
  maps?: Map<string, string | null>;
  ignoreUnknown?: boolean;
}

/** Each header column's field (null = ignored); throws listing unknown or duplicate columns. */
export function resolveHeader(header: string[], opts: HeaderOptions): (string | null)[] {
  const unknown: string[] = [];
  const seen = new Map<string, string[]>();
  const mapped = mapsByColumn(header, opts.maps ?? new Map(), opts.file);
  const fields = header.map((name, i) => {
    const field = mapped.has(i) ? mapped.get(i)! : fieldOf(name);
    if (field === undefined) {
      unknown.push(name === '' ? `(column ${i + 1} has no name)` : `'${name}'`);
      return null;
    }
    if (field !== null) seen.set(field, [...(seen.get(field) ?? []), name || `column ${i + 1}`]);
    return field;
  });
  const duplicates = [...seen].filter(([, names]) => names.length > 1);
  if (duplicates.length > 0) {
    const list = duplicates.map(([f, names]) => `${f} (${names.map((n) => `'${n}'`).join(', ')})`);
    throw new ImportError(
      `${opts.file}: several columns map to the same field: ${list.join('; ')}; remove one, or ignore it with --map "Header="`,
    );
  }
  if (unknown.length > 0 && !opts.ignoreUnknown) {
    throw new ImportError(
      `${opts.file}: unknown column${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}. ` +
        `Known: ${FIELDS.join(', ')}, profile.<customFieldId>. Map one with --map "Header=field", or skip them with --ignore-unknown`,
    );
  }
  return fields;
}
