/** The /users endpoints (the interface's, plus Roster's own user.v2/v3 request types). */
import {
  API_ERRORS as API,
  BODY_ERRORS as BODY,
  type EndpointDescriptor,
  ROSTER_ONLY,
  UNAVAILABLE,
  type VersionRow,
} from './types.js';

const USER_RESPONSE: readonly VersionRow[] = [
  [null, 'v1', 'production', 'flat'],
  ['user', 'v2', 'deprecated', 'v2', ROSTER_ONLY],
  ['user', 'v3', 'production', 'v3'],
];

export const USER_ENDPOINTS = {
  list: {
    method: 'GET',
    path: '/users',
    scope: ['users:read', 403],
    versions: {
      accept: [
        [null, 'v1', 'production', 'flat'],
        ['users', 'v2', 'production', 'v3'],
      ],
    },
    openapi: {
      operationId: 'listUsers',
      summary: 'List the branch’s users',
      description:
        'Sorted by `sort`, filtered by `status` and the free-text `query`; paged by `limit` and `offset`, or by `after` (the previous page’s `next` cursor, bound to its sort, status and query; deep pages cost as the first).',
      tag: 'Users',
      success: '200',
      body: { user: 'page' },
      headers: ['Link'],
      query: 'userList',
      errors: [...API, 'validation', 'accessDenied', ...UNAVAILABLE],
    },
    client: 'listUsers',
  },
  create: {
    method: 'POST',
    path: '/users',
    scope: ['users:write', 401],
    versions: {
      accept: USER_RESPONSE,
      contentType: [
        [null, 'v1', 'production', 'flat', ROSTER_ONLY],
        ['user', 'v2', 'deprecated', 'v2', ROSTER_ONLY],
        ['user', 'v3', 'production', 'v3', ROSTER_ONLY],
        ['user-invite', 'v2', 'production', 'v3', { requires: ['role', 'config.locale'] }],
      ],
    },
    openapi: {
      operationId: 'createUser',
      summary: 'Invite or create a user',
      description:
        'With `secret` the user is activated, else pending; an invitation is mailed unless `sendMail` is false.',
      tag: 'Users',
      success: '201',
      body: { user: 'one' },
      headers: ['Location'],
      errors: [...API, ...BODY, 'conflict', ...UNAVAILABLE],
    },
    client: 'createUser',
  },
  get: {
    method: 'GET',
    path: '/users/{userId}',
    scope: ['users:read', 403],
    versions: { accept: USER_RESPONSE },
    openapi: {
      operationId: 'getUser',
      summary: 'Read a user',
      tag: 'Users',
      success: '200',
      body: { user: 'one' },
      errors: [...API, 'accessDenied', 'notFound', ...UNAVAILABLE],
    },
    client: 'getUser',
  },
  update: {
    method: 'PUT',
    path: '/users/{userId}',
    scope: ['users:write', 401],
    versions: {
      accept: USER_RESPONSE,
      contentType: [
        [null, 'v1', 'production', 'flat'],
        ['user', 'v2', 'deprecated', 'v2', ROSTER_ONLY],
        ['user', 'v3', 'production', 'v3', ROSTER_ONLY],
        ['user-update', 'v1', 'production', 'v3'],
      ],
    },
    forms: true,
    openapi: {
      operationId: 'updateUser',
      summary: 'Update a user incrementally',
      description: 'Absent fields stay as they are; `null` clears an optional field.',
      tag: 'Users',
      success: '200',
      body: { user: 'one' },
      errors: [...API, ...BODY, 'notFound', 'conflict', ...UNAVAILABLE],
    },
    client: 'updateUser',
  },
  remove: {
    method: 'DELETE',
    path: '/users/{userId}',
    scope: ['users:write', 403],
    versions: { accept: [[null, 'v1', 'production', 'json']] },
    openapi: {
      operationId: 'deleteUser',
      summary: 'Remove a user',
      description:
        'The user becomes `deleted`: 404 from then on, gone from lists, externalId free.',
      tag: 'Users',
      success: '202',
      body: null,
      errors: [...API, 'accessDenied', 'notFound', ...UNAVAILABLE],
    },
    client: 'deleteUser',
  },
} as const satisfies Record<string, EndpointDescriptor>;
