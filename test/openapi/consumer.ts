/**
 * A typical typed consumer of the OpenAPI document: its types are what openapi-typescript
 * generates from `/api/openapi.json` (test/e2e/openapi.test.ts writes them next to this file
 * as api.ts, compiles both with tsc and runs the result against a real `roster serve`). It
 * lists, creates, updates, uploads and deletes, using only the generated types; it prints what
 * it saw as one JSON line for the test to check.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { components, paths } from './api.js';

const V3 = 'application/vnd.service.accessors.user.v3+json';
const USERS = 'application/vnd.service.accessors.users.v2+json';
const JSON_TYPE = 'application/json';

type User = components['schemas']['UserV3'];
type UserPage = paths['/users']['get']['responses'][200]['content'][typeof USERS];
type ListQuery = NonNullable<paths['/users']['get']['parameters']['query']>;
type CreateBody = NonNullable<paths['/users']['post']['requestBody']>['content'][typeof V3];
type UpdateBody = paths['/users/{userId}']['put']['requestBody']['content'][typeof V3];
type Medium = paths['/media']['post']['responses'][200]['content'][typeof JSON_TYPE];
type Upload = paths['/media']['post']['requestBody']['content']['multipart/form-data'];
type ApiError = components['schemas']['Error'];
// No body on these: openapi-typescript says `content?: never`, so only `undefined` fits.
const deletedUser: paths['/users/{userId}']['delete']['responses'][202]['content'] = undefined;
const deletedMedium: paths['/media/{mediumID}']['delete']['responses'][204]['content'] = undefined;

const base = `${process.env.ROSTER_URL}/api`;
const auth = { authorization: `Basic ${process.env.ROSTER_TOKEN}` };

async function call<T>(method: string, path: string, init: RequestInit = {}): Promise<T> {
  const res = await fetch(`${base}${path}`, {
    ...init,
    method,
    headers: { ...auth, ...(init.headers as Record<string, string>) },
  });
  if (!res.ok) {
    const error = (await res.json()) as ApiError;
    throw new Error(`${method} ${path}: ${error.statusCode} ${error.identifier} ${error.message}`);
  }
  const text = await res.text();
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

const json = (body: unknown) => ({
  headers: { accept: V3, 'content-type': V3 },
  body: JSON.stringify(body),
});

function list(query: ListQuery): Promise<UserPage> {
  const qs = new URLSearchParams(
    Object.entries(query).map(([k, v]) => [k, String(v)] as [string, string]),
  );
  return call('GET', `/users?${qs}`, { headers: { accept: USERS } });
}

const create = (body: CreateBody) => call<User>('POST', '/users', json(body));
const update = (id: string, body: UpdateBody) => call<User>('PUT', `/users/${id}`, json(body));

function upload(file: string, metaData: Upload['metaData']): Promise<Medium> {
  const form = new FormData();
  form.append('metaData', new Blob([JSON.stringify(metaData)], { type: JSON_TYPE }));
  form.append('file', new Blob([readFileSync(file)]), basename(file));
  return call('POST', '/media', { body: form, headers: { accept: JSON_TYPE } });
}

const created = await create({
  email: 'typed@example.com',
  externalId: 'typed-1',
  role: 'editor',
  config: { locale: 'de_DE' },
  profile: { firstName: 'Tia', lastName: 'Typed' },
  sendMail: false,
});
const updated = await update(created.id, { profile: { position: 'CTO' }, role: null });
const page = await list({ status: 'pending', sort: 'lastName_ASC_firstName_ASC', limit: 10 });
const medium = await upload(process.env.ROSTER_FILE!, { type: 'image' });
const preview = medium.transformations?.t_preview?.resourceInfo;
await call('DELETE', `/media/${medium.id}`, { headers: { accept: JSON_TYPE } });
await call('DELETE', `/users/${created.id}`, { headers: { accept: JSON_TYPE } });

process.stdout.write(
  `${JSON.stringify({
    created: { id: created.id, email: created.email?.value, status: created.status },
    updated: { position: updated.profile.position, role: updated.role },
    listed: page.data.map((u) => u.externalId),
    total: page.total,
    medium: {
      type: medium.resourceInfo.type,
      width: medium.resourceInfo.width,
      preview: !!preview,
    },
    deleted: [deletedUser, deletedMedium],
  })}\n`,
);
