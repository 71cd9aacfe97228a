/**
 * Import presets: what the exports of common HR and identity systems look like, as data — one
 * table per format, no code per format. Each names its columns (→ field, or null to ignore; in
 * order of precedence where several feed one field: the first non-empty cell wins), its match
 * key, its status columns and which of their values mark a leaver, and any preamble lines the
 * format writes before its header. Column names are the ones each vendor documents (see the
 * README's table of presets); they compare as the default aliases do, without case, spaces,
 * `_`, `-` and `.`.
 */
import type { MatchField } from './types.js';

export const PRESET_NAMES = [
  'gam',
  'entra',
  'entra-template',
  'okta',
  'bamboohr',
  'personio',
] as const;
export type PresetName = (typeof PRESET_NAMES)[number];

/** A column that says whether the row's person is still there. */
export interface StatusColumn {
  column: string;
  /** Values (compared without case and padding) that mark a leaver; any other value is active. */
  leaver?: readonly string[];
  /** Or the values that mark an active row: any other value, an empty cell too, is a leaver. */
  active?: readonly string[];
}

export interface Preset {
  name: PresetName;
  /** The format, as its vendor calls it. */
  title: string;
  /** How to produce the export (help text and README). */
  source: string;
  /** Header → field (null: ignore), in order of precedence between columns of one field. */
  columns: readonly (readonly [string, string | null])[];
  /** `bracket`: a header is known by its `[property]` ("Name [displayName] Required"). */
  headerKey?: 'bracket';
  match: MatchField;
  status: readonly StatusColumn[];
  /** Lines the format writes before its header (skipped when present). */
  preamble?: RegExp;
  /** Columns (all present) that identify the format, for the suggestion without --preset. */
  detect: readonly string[];
}

const ENTRA_TEMPLATE_PREAMBLE = /^version:v\d+(?:\.\d+)*[,;\t]*$/i;

export const PRESETS: Record<PresetName, Preset> = {
  gam: {
    name: 'gam',
    title: 'GAM7 print users',
    source: 'gam print users allfields > users.csv',
    columns: [
      ['primaryEmail', 'email'],
      ['externalIds.0.value', 'externalId'],
      ['name.givenName', 'firstName'],
      ['name.familyName', 'lastName'],
      ['organizations.0.title', 'position'],
      ['organizations.0.department', 'department'],
      ['organizations.0.location', 'location'],
      ['phones.0.value', 'phoneNumber'],
    ],
    match: 'email',
    status: [
      { column: 'suspended', leaver: ['true'] },
      { column: 'archived', leaver: ['true'] },
    ],
    detect: ['primaryEmail'],
  },
  entra: {
    name: 'entra',
    title: 'Microsoft Entra ID "Download users"',
    source: 'Entra admin center: Users > All users > Download users',
    columns: [
      ['mail', 'email'],
      ['userPrincipalName', 'email'],
      ['employeeId', 'externalId'],
      ['givenName', 'firstName'],
      ['surname', 'lastName'],
      ['jobTitle', 'position'],
      ['department', 'department'],
      ['officeLocation', 'location'],
      ['physicalDeliveryOfficeName', 'location'],
      ['telephoneNumber', 'phoneNumber'],
      ['mobilePhone', 'phoneNumber'],
      ['mobile', 'phoneNumber'],
    ],
    match: 'email',
    status: [{ column: 'accountEnabled', leaver: ['false', 'no'] }],
    detect: ['userPrincipalName', 'accountEnabled'],
  },
  'entra-template': {
    name: 'entra-template',
    title: 'Microsoft Entra ID bulk-create template',
    source:
      'Entra admin center: Users > All users > Bulk operations > Bulk create (its CSV template)',
    headerKey: 'bracket',
    columns: [
      ['userPrincipalName', 'email'],
      ['givenName', 'firstName'],
      ['surname', 'lastName'],
      ['jobTitle', 'position'],
      ['department', 'department'],
      ['physicalDeliveryOfficeName', 'location'],
      ['telephoneNumber', 'phoneNumber'],
      ['mobile', 'phoneNumber'],
    ],
    match: 'email',
    // "Block sign in (Yes/No) [accountEnabled]": Yes blocks the account.
    status: [{ column: 'accountEnabled', leaver: ['yes'] }],
    preamble: ENTRA_TEMPLATE_PREAMBLE,
    detect: ['userPrincipalName', 'passwordProfile'],
  },
  okta: {
    name: 'okta',
    title: 'Okta user export',
    source: 'Okta Admin Console: Directory > People, export to CSV (or a report of user profiles)',
    // Profile attribute names, then the Admin Console's labels of the same attributes.
    columns: [
      ['email', 'email'],
      ['Primary email', 'email'],
      ['login', 'userName'],
      ['Username', 'userName'],
      ['employeeNumber', 'externalId'],
      ['Employee number', 'externalId'],
      ['firstName', 'firstName'],
      ['lastName', 'lastName'],
      ['title', 'position'],
      ['department', 'department'],
      ['city', 'location'],
      ['primaryPhone', 'phoneNumber'],
      ['Primary phone', 'phoneNumber'],
      ['mobilePhone', 'phoneNumber'],
      ['Mobile phone', 'phoneNumber'],
    ],
    match: 'email',
    // API statuses, and the Admin Console's labels of the same two.
    status: [{ column: 'status', leaver: ['suspended', 'deprovisioned', 'deactivated'] }],
    detect: ['login', 'email', 'status'],
  },
  bamboohr: {
    name: 'bamboohr',
    title: 'BambooHR report',
    source:
      'BambooHR: Reports > New report (Employee #, Work Email, …, Status; include inactive employees) > Export CSV',
    columns: [
      ['Employee #', 'externalId'],
      ['Work Email', 'email'],
      ['First Name', 'firstName'],
      ['Last Name', 'lastName'],
      ['Job Title', 'position'],
      ['Department', 'department'],
      ['Location', 'location'],
      ['Work Phone', 'phoneNumber'],
      ['Mobile Phone', 'phoneNumber'],
    ],
    match: 'externalId',
    status: [{ column: 'Status', leaver: ['inactive'] }],
    detect: ['Employee #', 'Work Email'],
  },
  personio: {
    name: 'personio',
    title: 'Personio employee list (German or English UI)',
    source: 'Personio: Mitarbeitende (Personalliste) > Exportieren als CSV, with the column Status',
    columns: [
      ['E-Mail', 'email'],
      ['ID', 'externalId'],
      ['Vorname', 'firstName'],
      ['First name', 'firstName'],
      ['Nachname', 'lastName'],
      ['Last name', 'lastName'],
      ['Position', 'position'],
      ['Abteilung', 'department'],
      ['Department', 'department'],
      ['Büro', 'location'],
      ['Office', 'location'],
    ],
    match: 'email',
    status: [{ column: 'Status', leaver: ['inaktiv', 'inactive'] }],
    detect: ['Vorname', 'Nachname', 'E-Mail', 'Status'],
  },
};

/** Header names compare without case, spaces, `_`, `-` and `.` (as columns.ts does). */
export const normalizeHeader = (name: string) => name.toLowerCase().replace(/[\s_.-]+/g, '');

/** The name a preset knows a header by: its `[property]` for bracketed headers, else itself. */
export function headerKey(preset: Pick<Preset, 'headerKey'> | undefined, header: string): string {
  if (preset?.headerKey === 'bracket') {
    const m = /\[([^\]]+)\]/.exec(header);
    if (m) return normalizeHeader(m[1]!);
  }
  return normalizeHeader(header);
}

/** The preset whose format this header row (the file's first row) looks like, if any. */
export function detectPreset(header: string[]): Preset | undefined {
  const first = header.join(',').trim();
  let best: Preset | undefined;
  for (const preset of Object.values(PRESETS)) {
    if (preset.preamble?.test(first)) return preset;
    const keys = new Set(header.map((h) => headerKey(preset, h)));
    if (!preset.detect.every((d) => keys.has(normalizeHeader(d)))) continue;
    if (!best || preset.detect.length > best.detect.length) best = preset;
  }
  return best;
}
