/** The /media endpoints: uploads (multipart, not negotiated JSON bodies) and their records. */
import {
  API_ERRORS as API,
  BODY_ERRORS as BODY,
  type EndpointDescriptor,
  UNAVAILABLE,
  type VersionRow,
} from './types.js';

const PLAIN: readonly VersionRow[] = [[null, 'v1', 'production', 'json']];

export const MEDIA_ENDPOINTS = {
  list: {
    method: 'GET',
    path: '/media',
    scope: ['media:read', 401],
    versions: { accept: PLAIN },
    openapi: {
      operationId: 'listMedia',
      summary: 'List the branch’s media, newest first',
      tag: 'Media',
      success: '200',
      body: { schema: 'MediumPage' },
      query: 'page',
      errors: [...API, 'validation', ...UNAVAILABLE],
    },
    client: 'listMedia',
  },
  upload: {
    method: 'POST',
    path: '/media',
    scope: ['media:write', 401],
    versions: { accept: PLAIN },
    openapi: {
      operationId: 'uploadMedium',
      summary: 'Upload a file',
      description:
        'multipart/form-data with a `file` part and an optional `metaData` part (`{"type": …}`, a hint: the bytes decide). A preview is made where one can be.',
      tag: 'Media',
      success: '200',
      body: { schema: 'Medium' },
      upload: true,
      errors: [...API, ...BODY, ...UNAVAILABLE],
    },
    client: 'uploadMedium',
  },
  get: {
    method: 'GET',
    path: '/media/{mediumID}',
    scope: ['media:read', 401],
    versions: { accept: PLAIN },
    openapi: {
      operationId: 'getMedium',
      summary: 'Read a medium',
      tag: 'Media',
      success: '200',
      body: { schema: 'Medium' },
      errors: [...API, 'notFound', ...UNAVAILABLE],
    },
    client: 'getMedium',
  },
  remove: {
    method: 'DELETE',
    path: '/media/{mediumID}',
    scope: ['media:write', 403],
    versions: { accept: PLAIN },
    openapi: {
      operationId: 'deleteMedium',
      summary: 'Delete a medium and its files',
      tag: 'Media',
      success: '204',
      body: null,
      errors: [...API, 'accessDenied', 'notFound', ...UNAVAILABLE],
    },
    client: 'deleteMedium',
  },
} as const satisfies Record<string, EndpointDescriptor>;
