import { describe, expect, it } from 'vitest';
import { fieldOf, parseMaps, resolveHeader } from '../../src/import/columns.js';

describe('fieldOf', () => {
  it('takes field paths and aliases without case, spaces, _ and -', () => {
    const names: [string, string | undefined][] = [
      ['externalId', 'externalId'],
      ['Identifier', 'externalId'],
      ['EXTERNAL_ID', 'externalId'],
      ['E-Mail', 'email'],
      ['Email Address', 'email'],
      ['First Name', 'firstName'],
      ['first_name', 'firstName'],
      ['profile.firstName', 'firstName'],
      ['Config.Locale', 'locale'],
      ['locale', 'locale'],
      ['Phone', 'phoneNumber'],
      ['User Name', 'userName'],
      ['profile.costCenter', 'profile.costCenter'],
      ['profile.cost center', undefined],
      ['Shoe Size', undefined],
      ['id', undefined],
    ];
    for (const [name, field] of names) expect([name, fieldOf(name)]).toEqual([name, field]);
  });
});

describe('parseMaps', () => {
  it('maps a header to a field, or to nothing', () => {
    const maps = parseMaps(['Personalnummer=externalId', 'Vorname = First Name', 'Notizen=']);
    expect([...maps]).toEqual([
      ['Personalnummer', 'externalId'],
      ['Vorname', 'firstName'],
      ['Notizen', null],
    ]);
  });

  it('refuses malformed values and unknown targets as usage errors', () => {
    expect(() => parseMaps(['Personalnummer'])).toThrow(/expects "Header=field"/);
    expect(() => parseMaps(['A=shoeSize'])).toThrow(/'shoeSize' is not a field/);
    try {
      parseMaps(['=email']);
    } catch (err) {
      expect((err as { kind: string }).kind).toBe('usage');
    }
  });
});

describe('resolveHeader', () => {
  const file = 'people.csv';

  it('resolves every column', () => {
    expect(
      resolveHeader(['Identifier', 'E-Mail', 'First Name', 'profile.costCenter'], { file }).fields,
    ).toEqual(['externalId', 'email', 'firstName', 'profile.costCenter']);
  });

  it('lists unknown columns, unless told to ignore them', () => {
    const header = ['externalId', 'Shoe Size', '', 'Favourite Colour'];
    expect(() => resolveHeader(header, { file })).toThrow(
      /people\.csv: unknown columns 'Shoe Size', \(column 3 has no name\), 'Favourite Colour'.*--map.*--ignore-unknown/,
    );
    expect(resolveHeader(header, { file, ignoreUnknown: true }).fields).toEqual([
      'externalId',
      null,
      null,
      null,
    ]);
  });

  it('unknown columns are a usage error, naming --status-column for a status column', () => {
    const header = ['externalId', 'Status', 'Hire Date'];
    let error: unknown;
    try {
      resolveHeader(header, { file });
    } catch (err) {
      error = err;
    }
    expect(error).toMatchObject({ kind: 'usage' });
    expect((error as Error).message).toContain(
      "'Status' looks like who is active: read it with --status-column Status --active-values <values meaning active>",
    );
    expect(() => resolveHeader(['externalId', 'Employment Status'], { file })).toThrow(
      "--status-column 'Employment Status'",
    );
  });

  it('knows the common English and German headers of HR exports', () => {
    const header = [
      'Employee ID',
      'Work Email',
      'Vorname',
      'Nachname',
      'Job Title',
      'Abteilung',
      'Standort',
      'Telefon',
    ];
    expect(resolveHeader(header, { file }).fields).toEqual([
      'externalId',
      'email',
      'firstName',
      'lastName',
      'position',
      'department',
      'location',
      'phoneNumber',
    ]);
    expect(['Mobile Phone', 'Office', 'Employee #', 'Personalnummer', 'Büro'].map(fieldOf)).toEqual(
      ['phoneNumber', 'location', 'externalId', 'externalId', 'location'],
    );
  });

  it('refuses two columns for one field', () => {
    expect(() => resolveHeader(['externalId', 'Email', 'E-Mail'], { file })).toThrow(
      /several columns map to the same field: email \('Email', 'E-Mail'\)/,
    );
  });

  it('--map wins over names and can drop a column', () => {
    const maps = parseMaps(['Personalnummer=externalId', 'E-Mail=']);
    expect(resolveHeader(['Personalnummer', 'E-Mail', 'Email'], { file, maps }).fields).toEqual([
      'externalId',
      null,
      'email',
    ]);
    expect(() =>
      resolveHeader(['a'], { file, maps: parseMaps(['Personalnumer=externalId']) }),
    ).toThrow(/--map Personalnumer=…: people\.csv has no column 'Personalnumer'/);
  });
});
