import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { UserV3 } from '../../src/contract/user.js';
import { plainLayout } from '../../src/import/columns.js';
import {
  createBody,
  currentValues,
  diff,
  rowValues,
  toBody,
  updateBody,
  validate,
} from '../../src/import/fields.js';

const columns = plainLayout([
  'externalId',
  'email',
  'firstName',
  'role',
  'locale',
  'secret',
  'profile.costCenter',
  null,
]);

describe('rowValues', () => {
  it('trims cells, lower-cases roles, and leaves empty cells out', () => {
    expect(
      rowValues(
        [' E-1 ', 'a@example.com', '', 'Admin', 'de_DE', '', 'CC-1', 'ignored'],
        columns,
        false,
      ),
    ).toEqual({
      externalId: 'E-1',
      email: 'a@example.com',
      role: 'admin',
      locale: 'de_DE',
      'profile.costCenter': 'CC-1',
    });
  });

  it('--empty-clears turns empty cells into null, except create-only fields', () => {
    const values = rowValues(['E-1', '', '', '', '', '', '', ''], columns, true);
    expect(values).toEqual({
      externalId: 'E-1',
      email: null,
      firstName: null,
      role: null,
      locale: null,
      'profile.costCenter': null,
    });
  });
});

describe('validate', () => {
  it('uses the contract schemas and names import fields', () => {
    const issues = validate({
      email: 'x@',
      role: 'boss',
      locale: 'german',
      firstName: 'A',
      'profile.costCenter': 'x',
    });
    expect(issues.map((i) => i.field).sort()).toEqual(['email', 'locale', 'role']);
    expect(issues.find((i) => i.field === 'locale')!.message).toMatch(/xx_YY/);
    expect(validate({ secret: 'short' })[0]).toMatchObject({ field: 'secret' });
    expect(validate({ recoveryCode: 'ab' })[0]).toMatchObject({ field: 'recoveryCode' });
    expect(validate({ email: 'ok@example.com', locale: 'de_DE', role: 'reader' })).toEqual([]);
  });

  it('finds a row valid only when the whole body passes the update schema (property)', async () => {
    // validate checks each value alone first; this holds that shortcut to the schema itself.
    const { FIELDS } = await import('../../src/import/columns.js');
    const { userBodySchemas } = await import('../../src/contract/schemas.js');
    const value = fc.oneof(
      fc.constantFrom(
        '',
        'a',
        'x@',
        'ok@example.com',
        'de_DE',
        'german',
        'reader',
        'Admin',
        'a b',
        'ctl\u0007',
        'x'.repeat(129),
        'x'.repeat(257),
        'long enough secret',
        'abcd',
      ),
      fc.string({ maxLength: 12 }),
      fc.constant(null),
    );
    const values = fc.dictionary(
      fc.constantFrom(...FIELDS, 'profile.costCenter', 'profile.firstname', 'profile.a b'),
      value,
      { maxKeys: 8 },
    );
    fc.assert(
      fc.property(values, (v) => {
        const whole = userBodySchemas.v3.update.safeParse(toBody(v)).success;
        expect(validate(v).length === 0).toBe(whole);
      }),
      { numRuns: 2000 },
    );
  });
});

const user: UserV3 = {
  id: 'u1',
  status: 'activated',
  role: 'reader',
  createdAt: '2026-01-01T00:00:00.000Z',
  activatedAt: null,
  externalId: 'E-1',
  email: { value: 'a@example.com', source: 'system' },
  userName: null,
  config: { locale: 'de_DE' },
  profile: { firstName: 'Ann', lastName: null, avatar: null, costCenter: 'CC-1' },
};

describe('currentValues and diff', () => {
  it('reads a v3 user as import values', () => {
    expect(currentValues(user)).toEqual({
      externalId: 'E-1',
      email: 'a@example.com',
      role: 'reader',
      locale: 'de_DE',
      firstName: 'Ann',
      'profile.costCenter': 'CC-1',
    });
  });

  it('lists changed fields; equal, padded and create-only values do not count', () => {
    const current = { ...currentValues(user), lastName: 'Lee ' };
    expect(
      diff(
        { externalId: 'E-1', firstName: 'Ann', lastName: 'Lee', secret: 'new-secret-1' },
        current,
      ),
    ).toEqual([]);
    expect(
      diff({ firstName: 'Anna', lastName: null, 'profile.costCenter': null }, current),
    ).toEqual([
      { field: 'firstName', from: 'Ann', to: 'Anna' },
      { field: 'lastName', from: 'Lee ', to: null },
      { field: 'profile.costCenter', from: 'CC-1', to: null },
    ]);
    expect(diff({ position: null }, current)).toEqual([]);
  });
});

describe('bodies', () => {
  it('builds nested v3 bodies', () => {
    expect(
      toBody({
        email: 'a@example.com',
        locale: 'de_DE',
        firstName: 'Ann',
        'profile.costCenter': 'CC',
        recoveryCode: 'abcd',
      }),
    ).toEqual({
      email: 'a@example.com',
      config: { locale: 'de_DE' },
      profile: { firstName: 'Ann', costCenter: 'CC' },
      recoveryCode: { plain: 'abcd' },
    });
  });

  it('a create sends set values and sendMail; an update the changes and a status', () => {
    expect(createBody({ email: 'a@example.com', firstName: null }, false)).toEqual({
      email: 'a@example.com',
      sendMail: false,
    });
    expect(
      updateBody([
        { field: 'firstName', from: 'A', to: 'B' },
        { field: 'status', from: 'deactivated', to: 'activated' },
      ]),
    ).toEqual({ profile: { firstName: 'B' }, status: 'activated' });
  });
});

describe('snapshot packing', () => {
  it('packs and unpacks values, custom fields and odd characters', async () => {
    const { pack, valuesOf } = await import('../../src/import/snapshot.js');
    const cases: Record<string, string>[] = [
      {},
      { externalId: 'E-1', email: 'a@example.com', firstName: 'Zoë', 'profile.costCenter': 'CC' },
      { externalId: 'E-\u0001', location: 'a\u0002b', 'profile.x': '\u0000' },
      { lastName: '', department: 'x' },
    ];
    for (const values of cases) {
      expect(valuesOf({ id: 'u', status: 'activated', packed: pack(values) })).toEqual(values);
    }
  });

  it('unpacks what it packs, for any values (property)', async () => {
    const { pack, valuesOf } = await import('../../src/import/snapshot.js');
    const { FIELDS, CREATE_ONLY, READ_ONLY } = await import('../../src/import/columns.js');
    const named = FIELDS.filter((f) => !CREATE_ONLY.has(f) && !READ_ONLY.has(f));
    // Cells with the separators, empty ones, and custom fields among named ones.
    const cell = fc.string({
      unit: fc.constantFrom('a', 'Z', 'é', ' ', '', '\u0000', '\u0001', '\u0002'),
    });
    const values = fc.dictionary(
      fc.oneof(
        fc.constantFrom(...named),
        cell.map((c) => `profile.x${c}`),
      ),
      cell,
      { maxKeys: 20 },
    );
    fc.assert(
      fc.property(values, (v) => {
        const sorted = (o: Record<string, string | null>) =>
          Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));
        expect(sorted(valuesOf({ id: 'u', status: 'activated', packed: pack(v) }))).toEqual(
          sorted(v),
        );
      }),
      { numRuns: 500 },
    );
  });
});
