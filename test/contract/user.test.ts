import { describe, expect, test } from 'vitest';
import { toFlat, toV2, toV3, type UserRecord } from '../../src/contract/user.js';
import { parseUserBody } from '../../src/contract/user-input.js';

const record: UserRecord = {
  id: '6b0228ac94da91376d547a51',
  status: 'activated',
  role: 'editor',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-02T00:00:00.000Z',
  activatedAt: '2026-01-01T00:00:00.000Z',
  version: 1,
  externalId: 'e-1',
  email: 'ann@example.com',
  userName: 'ann',
  locale: 'de_DE',
  gender: 'f',
  profile: { firstName: 'Ann', lastName: 'Lee', position: 'CTO' },
  avatar: null,
  custom: { cf_team: 'blue' },
};

describe('representations', () => {
  test('v3 nests email/userName with a source and puts custom fields in profile', () => {
    const v3 = toV3(record);
    expect(v3.email).toEqual({ value: 'ann@example.com', source: 'system' });
    expect(v3.userName).toEqual({ value: 'ann', source: 'user' });
    expect(v3.config).toEqual({ locale: 'de_DE' });
    expect(v3.profile).toMatchObject({
      firstName: 'Ann',
      position: 'CTO',
      department: null,
      cf_team: 'blue',
    });
    expect(v3).not.toHaveProperty('gender');
  });
  test('v2 is v3 with plain strings', () => {
    expect(toV2(record)).toMatchObject({
      email: 'ann@example.com',
      userName: 'ann',
      config: { locale: 'de_DE' },
    });
  });
  test('flat has role {type}, created/updated and gender', () => {
    expect(toFlat(record)).toMatchObject({
      externalID: 'e-1',
      role: { type: 'editor' },
      created: record.createdAt,
      updated: record.updatedAt,
      gender: 'f',
      position: 'CTO',
    });
  });
});

describe('parseUserBody: every shape maps to the same input', () => {
  test('flat, v2 and v3 bodies describing one user are equal inputs', () => {
    const flat = parseUserBody('flat', 'create', {
      email: 'a@example.com',
      externalID: 'x',
      firstName: 'A',
      role: { type: 'reader' },
    });
    const v2 = parseUserBody('v2', 'create', {
      email: 'a@example.com',
      externalId: 'x',
      profile: { firstName: 'A' },
      role: 'reader',
    });
    const v3 = parseUserBody('v3', 'create', {
      email: { value: 'a@example.com' },
      externalId: 'x',
      profile: { firstName: 'A' },
      role: 'reader',
    });
    expect(flat).toEqual(v2);
    expect(v2).toEqual(v3);
    expect(v3).toEqual({
      ok: true,
      input: {
        email: 'a@example.com',
        externalId: 'x',
        profile: { firstName: 'A' },
        role: 'reader',
      },
    });
  });
  test('v2 does not take the object form of email', () => {
    expect(parseUserBody('v2', 'create', { email: { value: 'a@example.com' } }).ok).toBe(false);
  });
  test('status is read-only on create and limited on update', () => {
    expect(parseUserBody('v3', 'create', { email: 'a@example.com', status: 'activated' })).toEqual({
      ok: false,
      issues: [{ field: 'status', message: 'is read-only' }],
    });
    expect(parseUserBody('v3', 'update', { status: 'deactivated' })).toEqual({
      ok: true,
      input: { status: 'deactivated' },
    });
    expect(parseUserBody('flat', 'update', { status: 'pending' }).ok).toBe(false);
  });
});
