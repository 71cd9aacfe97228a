import { describe, expect, it } from 'vitest';
import { applySets } from '../../src/cli/commands/users/patch.js';
import { IDENTITY_FIELDS as IDENTITY_RULE } from '../../src/contract/identity.js';
import { userBodySchemas } from '../../src/contract/schemas.js';
import {
  IDENTITY_FIELDS,
  isCsvReadOnly,
  PROFILE_FIELDS,
  USER_FIELDS,
  type UserField,
  userField,
} from '../../src/contract/user-fields.js';
import { FIELDS, fieldOf, resolveHeader } from '../../src/import/columns.js';
import { EXPORT_FIELDS, templateHeader } from '../../src/import/export.js';
import { toBody } from '../../src/import/fields.js';
import { normalizeHeader } from '../../src/import/presets.js';

/** A value the contract accepts for each field. */
const SAMPLE: Record<string, string> = {
  externalId: 'E-1',
  email: 'ann@example.com',
  userName: 'ann',
  role: 'editor',
  locale: 'de_DE',
  secret: 'correct horse battery',
  recoveryCode: 'R-1234',
};
const sample = (name: string) => SAMPLE[name] ?? 'Some text';

describe('the user-field table', () => {
  it('names each field once and gives each header alias to one field, as headers are compared', () => {
    const names = USER_FIELDS.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    const aliases = USER_FIELDS.flatMap((f) => ('aliases' in f ? [...f.aliases] : []));
    expect(new Set(aliases).size).toBe(aliases.length);
    for (const alias of aliases) expect(normalizeHeader(alias)).toBe(alias);
  });

  it('each field, set by its name through --set, makes a create body the contract accepts', () => {
    // A read-only field's value is no string (the avatar is three images): nothing to --set.
    for (const f of USER_FIELDS.filter((f: UserField) => !isCsvReadOnly(f))) {
      const body = applySets({}, [`${f.name}=${sample(f.name)}`]);
      const parsed = userBodySchemas.v3.create.safeParse(body);
      expect(parsed.success, `${f.name}: ${JSON.stringify(body)}`).toBe(true);
    }
  });

  it('the import writes the same body for a field as --set does', () => {
    for (const f of USER_FIELDS) {
      expect(toBody({ [f.name]: sample(f.name) }), f.name).toEqual(
        applySets({}, [`${f.name}=${sample(f.name)}`]),
      );
    }
  });

  it("the import's columns, the identity rule and the profile fields are the table's", () => {
    expect(FIELDS).toEqual(USER_FIELDS.map((f) => f.name));
    for (const f of USER_FIELDS) {
      expect(fieldOf(f.name)).toBe(f.name);
      for (const alias of 'aliases' in f ? f.aliases : []) expect(fieldOf(alias)).toBe(f.name);
    }
    expect(IDENTITY_RULE).toEqual(IDENTITY_FIELDS);
    expect([...IDENTITY_FIELDS]).toEqual(['externalId', 'email', 'userName']);
    expect(PROFILE_FIELDS.every((f) => userField(f)?.body === `profile.${f}`)).toBe(true);
  });

  it('a read-only field is exported, accepted and never read by the import, no profile field', () => {
    const readOnly = USER_FIELDS.filter((f: UserField) => isCsvReadOnly(f)).map((f) => f.name);
    expect(readOnly).toEqual(['avatar']);
    expect(PROFILE_FIELDS).not.toContain('avatar');
    expect(EXPORT_FIELDS).toContain('avatar');
    expect(templateHeader()).not.toContain('avatar');
    const layout = resolveHeader(['externalId', 'Avatar'], { file: 'f.csv' });
    expect(layout.fields).toEqual(['externalId', null]);
    expect(layout.readOnly).toEqual([{ column: 'Avatar', field: 'avatar' }]);
  });
});
