import { describe, expect, it } from 'vitest';
import { getPath, leaves, parseFields, pickPaths } from '../../../src/cli/output/fields.js';
import { user } from '../helpers.js';

describe('--fields', () => {
  it('parses, dedupes and checks the first segment', () => {
    expect(parseFields(' id, email.value ,id', ['id', 'email'])).toEqual([
      { name: 'id', path: 'id' },
      { name: 'email.value', path: 'email.value' },
    ]);
    expect(() => parseFields('emial', ['id', 'email'])).toThrow(
      /unknown field 'emial'; did you mean email\? Fields are id, email/,
    );
    expect(() => parseFields(',', ['id'])).toThrow(/at least one field/);
    expect(() => parseFields('profile..x')).toThrow(/not a field path/);
  });

  const names = { email: 'email.value', lastName: 'profile.lastName' };

  it("takes the table's names for the paths they show, as named", () => {
    expect(parseFields('id,lastName,email,email.value', ['id', 'email'], names)).toEqual([
      { name: 'id', path: 'id' },
      { name: 'lastName', path: 'profile.lastName' },
      { name: 'email', path: 'email.value' },
    ]);
  });

  it('takes names and first segments in any case, spelt as the table spells them', () => {
    expect(parseFields('lastname,EMAIL,ID,PROFILE.department', ['id', 'profile'], names)).toEqual([
      { name: 'lastName', path: 'profile.lastName' },
      { name: 'email', path: 'email.value' },
      { name: 'ID', path: 'id' },
      { name: 'PROFILE.department', path: 'profile.department' },
    ]);
  });

  it.each([
    ['lastNmae', 'lastName'],
    ['emali', 'email'],
    ['profil.department', 'profile'],
  ])('%s: suggests %s', (typo, guess) => {
    expect(() => parseFields(typo, ['id', 'email', 'profile'], names)).toThrow(
      `did you mean ${guess}?`,
    );
  });

  it('no suggestion when nothing is near; names like constructor are not names', () => {
    expect(() => parseFields('zzzzzzzz', ['id'], names)).toThrow(/unknown field 'zzzzzzzz'\. /);
    // Refused before it is looked up at all: it could reach a prototype (safe-keys.ts).
    expect(() => parseFields('constructor', ['id'], names)).toThrow(
      /the key 'constructor' is not allowed/,
    );
  });

  it('reads dotted paths', () => {
    const u = user();
    expect(getPath(u, 'email.value')).toBe('ann@example.com');
    expect(getPath(u, 'profile.position')).toBe('CTO');
    expect(getPath(u, 'userName.value')).toBeUndefined();
    expect(getPath(u, 'id.x')).toBeUndefined();
  });

  it('cuts an object down to paths, keeping the nesting', () => {
    expect(
      pickPaths(user(), [
        'id',
        'email.value',
        'profile.firstName',
        'profile.lastName',
        'userName.value',
      ]),
    ).toEqual({
      id: '65f000000000000000000001',
      email: { value: 'ann@example.com' },
      profile: { firstName: 'Ann', lastName: 'Smith' },
      userName: { value: null },
    });
  });

  it('lists leaves for a one-record table', () => {
    expect(leaves({ a: 1, b: { c: null, d: {} }, e: [1] })).toEqual([
      ['a', 1],
      ['b.c', null],
      ['b.d', null],
      ['e', [1]],
    ]);
  });
});
