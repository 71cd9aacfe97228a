/**
 * The endpoint descriptors (contract/endpoints/): every list derived from them picks up a new
 * one by itself — the versions registry, the scopes, the OpenAPI operations, the client's
 * negotiated keys, `roster api`'s matching (any depth) and the Allow answer.
 */
import { describe, expect, test } from 'vitest';
import * as events from '../../src/client/events.js';
import * as media from '../../src/client/media.js';
import { negotiatedKeys } from '../../src/client/media-types.js';
import { endpointOf } from '../../src/client/raw.js';
import * as users from '../../src/client/users.js';
import * as webhooks from '../../src/client/webhooks.js';
import {
  allowOf,
  ENDPOINTS,
  type EndpointDescriptor,
  matchEndpoint,
} from '../../src/contract/endpoints/index.js';
import { neededScopesOf } from '../../src/contract/scopes.js';
import { REGISTRY, registryOf } from '../../src/contract/versions.js';
import { openApiDocument } from '../../src/server/api/openapi.js';

/** A made-up endpoint three segments deep, as `/users/{userId}/events` would be. */
const FAKE: EndpointDescriptor = {
  method: 'GET',
  path: '/users/{userId}/events',
  scope: ['events:read', 403],
  versions: { accept: [[null, 'v1', 'production', 'json', { rosterOnly: true }]] },
  openapi: {
    operationId: 'listUserEvents',
    summary: 'List one user’s events',
    tag: 'Events',
    success: '200',
    body: { schema: 'EventPage' },
    errors: ['notLoggedIn', 'accessDenied'],
  },
  client: 'listUserEvents',
};
const WITH_FAKE = [...ENDPOINTS, FAKE];

describe('roster api: which endpoint a path names', () => {
  test('a path of any depth is matched to its descriptor, its parameters decoded', () => {
    expect(endpointOf('/users/u%2F1/events', 'GET', WITH_FAKE)).toEqual({
      endpoint: '/users/{userId}/events',
      params: { userId: 'u/1' },
    });
    // Not one of the service's endpoints, nor a method the descriptor has: sent as it is.
    expect(endpointOf('/users/u-1/events', 'GET')).toBeUndefined();
    expect(endpointOf('/users/u-1/events', 'POST', WITH_FAKE)).toBeUndefined();
  });

  test('the service’s own endpoints are matched as before', () => {
    expect(endpointOf('/users', 'POST')).toEqual({ endpoint: '/users', params: {} });
    expect(endpointOf('/users/', 'GET')).toEqual({ endpoint: '/users', params: {} });
    expect(endpointOf('/media/m-1', 'DELETE')).toEqual({
      endpoint: '/media/{mediumID}',
      params: { mediumID: 'm-1' },
    });
    expect(endpointOf('/events', 'GET')).toEqual({ endpoint: '/events', params: {} });
    expect(endpointOf('/users/a/b', 'GET')).toBeUndefined();
    expect(endpointOf('/branch', 'GET')).toBeUndefined();
    expect(endpointOf('/media/m-1', 'PUT')).toBeUndefined();
  });
});

describe('a new descriptor is picked up by every derived list', () => {
  test('the versions registry', () => {
    expect(registryOf(WITH_FAKE).filter((e) => e.endpoint === FAKE.path)).toEqual([
      {
        endpoint: FAKE.path,
        method: 'GET',
        header: 'accept',
        entity: null,
        version: 'v1',
        stage: 'production',
        shape: 'json',
        platform: false,
      },
    ]);
    expect(registryOf(ENDPOINTS)).toEqual(REGISTRY);
  });

  test('the scopes the server requires and the client names', () => {
    expect(neededScopesOf(WITH_FAKE)['GET /users/{userId}/events']).toEqual(['events:read', 403]);
  });

  test('the client’s negotiated keys', () => {
    expect(negotiatedKeys(WITH_FAKE)).toContain('GET /users/{userId}/events accept');
    expect(negotiatedKeys(ENDPOINTS)).not.toContain('GET /users/{userId}/events accept');
  });

  test('the OpenAPI operations, with HEAD and OPTIONS', () => {
    const item = openApiDocument('service', '/api', WITH_FAKE).paths[FAKE.path] as any;
    expect(item.get.operationId).toBe('listUserEvents');
    expect(Object.keys(item.get.responses['200'].content)).toEqual(['application/json']);
    expect(item.get.parameters.map((p: { name: string }) => p.name)).toEqual(['userId']);
    expect(item.head.operationId).toBe('listUserEventsHead');
    expect(item.options.operationId).toBe('optionsUsersUserIdEvents');
  });

  test('a plain JSON body by its schema’s name', () => {
    const NOTE: EndpointDescriptor = {
      ...FAKE,
      method: 'POST',
      scope: ['users:write', 403],
      openapi: { ...FAKE.openapi, operationId: 'addUserEvent', jsonBody: 'MediaMetaData' },
      client: 'addUserEvent',
    };
    const doc = openApiDocument('service', '/api', [...WITH_FAKE, NOTE]);
    const post = (doc.paths[FAKE.path] as any).post;
    expect(post.requestBody.content).toEqual({
      'application/json': { schema: { $ref: '#/components/schemas/MediaMetaData' } },
    });
    expect(allowOf(FAKE.path, [...WITH_FAKE, NOTE])).toBe('OPTIONS, POST, GET');
  });

  test('the Allow answer, in the interface’s order', () => {
    expect(allowOf(FAKE.path, WITH_FAKE)).toBe('OPTIONS, GET');
    expect(allowOf('/users')).toBe('OPTIONS, POST, GET');
    expect(allowOf('/users/{userId}')).toBe('OPTIONS, PUT, GET, DELETE');
    expect(allowOf('/media/{mediumID}')).toBe('OPTIONS, GET, DELETE');
    const patch = { ...FAKE, method: 'PATCH' } as const;
    expect(allowOf(FAKE.path, [...WITH_FAKE, patch])).toBe('OPTIONS, PATCH, GET');
  });

  test('path templates match exact segments only', () => {
    expect(matchEndpoint('/users/x/events', WITH_FAKE)?.path).toBe(FAKE.path);
    expect(matchEndpoint('/users/x/events/y', WITH_FAKE)).toBeUndefined();
  });
});

describe('every descriptor', () => {
  test('names a client function that exists', () => {
    const modules = [users, media, events, webhooks];
    const exported = new Set(modules.flatMap((m) => Object.keys(m)));
    const missing = ENDPOINTS.filter((d) => !exported.has(d.client)).map((d) => d.client);
    expect(missing).toEqual([]);
  });

  test('is one method and path, declared once', () => {
    const keys = ENDPOINTS.map((d) => `${d.method} ${d.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
