/**
 * The response schemas (the OpenAPI document's) against what the contract's mappings make: a
 * full record and an empty one, in every shape. The HTTP suites check real answers; this pins
 * the edges they may not reach (an avatar, nulls everywhere).
 */
import { expectTypeOf, test } from 'vitest';
import type { z } from 'zod';
import type { Medium } from '../../src/contract/medium.js';
import {
  mediumSchema,
  userFlatSchema,
  userV2Schema,
  userV3Schema,
} from '../../src/contract/representations.js';
import { toFlat, toV2, toV3, type UserRecord } from '../../src/contract/user.js';

const full: UserRecord = {
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
  profile: { firstName: 'Ann', lastName: 'Lee', position: 'CTO', phoneNumber: '+49 89 1' },
  avatar: { original: { url: 'https://img.example/a.png', width: 10, mimeType: 'image/png' } },
  custom: { cf_team: 'blue' },
};
const empty: UserRecord = {
  ...full,
  status: 'pending',
  role: null,
  activatedAt: null,
  externalId: null,
  email: null,
  userName: 'x',
  locale: null,
  gender: null,
  profile: {},
  avatar: null,
  custom: {},
};

test.each([
  ['full', full],
  ['empty', empty],
])('every shape of a %s user matches its schema', (_, record) => {
  userV3Schema.parse(toV3(record));
  userV2Schema.parse(toV2(record));
  userFlatSchema.parse(toFlat(record));
});

test('a medium with a video preview matches its schema; the types agree', () => {
  const info = {
    type: 'image',
    bytes: 10,
    url: 'http://x/cdn/a',
    format: 'jpg',
    mimeType: 'image/jpeg',
  } as const;
  const medium: Medium = {
    id: '6b0228ac94da91376d547a51',
    ownerID: '1',
    ownerType: 'token',
    publicID: '_default/main/6b0228ac94da91376d547a51/clip.mp4',
    resourceInfo: { ...info, type: 'video', format: 'mp4', duration: 1.5, width: 4, height: 2 },
    transformations: {
      t_preview: { transformationString: 't_preview', status: 'FINISHED', resourceInfo: info },
    },
    fileName: 'clip.mp4',
    entityType: 'medium',
  };
  mediumSchema.parse(medium);
  expectTypeOf<z.output<typeof mediumSchema>>().toExtend<Medium>();
});
