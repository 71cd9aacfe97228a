/**
 * The OpenAPI document as generated: every registry row in it, the shape rules tools rely on,
 * and the validating wrapper of the HTTP suites rejecting what the document does not allow.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, test } from 'vitest';
import { mediaTypeOf, REGISTRY } from '../../../src/contract/versions.js';
import { openApiDocument, openApiJson } from '../../../src/server/api/openapi.js';
import { checkAnswer, dereference } from '../../helpers/openapi-validation.js';
import { UNSET_PROFILE } from '../../helpers/user-fields.js';

const checkForm = (schema: object, value: unknown) =>
  new Ajv2020({ strict: false }).validate(schema, value);
const doc = dereference(openApiDocument('service', '/api')) as any;
const operations = Object.values<any>(doc.paths).flatMap((item) =>
  Object.entries<any>(item).filter(([method]) => method !== 'servers'),
);

const V3 = 'application/vnd.service.accessors.user.v3+json';
const user = {
  id: '0123456789abcdef01234567',
  status: 'pending',
  role: null,
  createdAt: '2026-01-02T03:04:05.678Z',
  activatedAt: null,
  externalId: null,
  email: { value: 'a@example.com', source: 'system' },
  userName: null,
  config: { locale: null },
  profile: { ...UNSET_PROFILE, firstName: 'Ann', avatar: null, cf_team: 'blue' },
};
const answer = (status: number, type: string | undefined, body: unknown, headers = {}) => ({
  status,
  headers: { 'x-request-id': 'r-1', ...(type ? { 'content-type': type } : {}), ...headers },
  text: body === undefined ? '' : JSON.stringify(body),
  json: body,
});

describe('the generated document', () => {
  test('every registry row is a media type of its operation, for the configured vendor', () => {
    const acme = dereference(openApiDocument('acme', '/api')) as any;
    for (const e of REGISTRY) {
      const op = acme.paths[e.endpoint][e.method.toLowerCase()];
      const type = mediaTypeOf(e, 'acme');
      if (e.header === 'content-type') {
        expect(Object.keys(op.requestBody.content), `${e.method} ${e.endpoint}`).toContain(type);
      } else if (e.method !== 'DELETE') {
        const success = Object.keys(op.responses).find((s) => s.startsWith('2'))!;
        expect(Object.keys(op.responses[success].content), `${e.method} ${e.endpoint}`).toContain(
          type,
        );
      }
    }
  });

  test('operations have unique ids and summaries; every one declares its error body for 4XX and 5XX', () => {
    const ids = operations.map(([, op]) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const [method, op] of operations) {
      expect(op.summary, op.operationId).toBeTruthy();
      if (method === 'head') continue;
      // SCIM's routes answer failures in the SCIM Error schema, the rest in the envelope.
      const scim = op.tags?.includes('SCIM');
      for (const range of ['4XX', '5XX']) {
        const content = op.responses[range].content;
        if (scim) {
          expect(content['application/scim+json'].schema, op.operationId).toEqual(
            doc.components.schemas.ScimError,
          );
        } else {
          expect(content['application/json'].schema).toEqual(doc.components.schemas.Error);
        }
      }
    }
  });

  test('answers without a body (202, 204, 304, HEAD) declare no content', () => {
    for (const [method, op] of operations) {
      for (const [status, response] of Object.entries<any>(op.responses)) {
        if (method === 'head' || ['202', '204', '304'].includes(status)) {
          expect(response.content, `${op.operationId} ${status}`).toBeUndefined();
        }
      }
    }
  });

  test('uploads are multipart/form-data with a file part; lists take their query parameters', () => {
    const upload = doc.paths['/media'].post.requestBody.content;
    expect(Object.keys(upload)).toEqual(['multipart/form-data']);
    expect(upload['multipart/form-data'].schema.required).toEqual(['file']);
    const names = (op: any) => op.parameters.map((p: any) => p.name);
    expect(names(doc.paths['/users'].get)).toEqual([
      'limit',
      'offset',
      'after',
      'query',
      'sort',
      'status',
    ]);
    expect(names(doc.paths['/media'].get)).toEqual(['limit', 'offset']);
  });

  test('form bodies of PUT list the dotted keys of the v3 update, custom profile fields too', () => {
    const form =
      doc.paths['/users/{userId}'].put.requestBody.content['application/x-www-form-urlencoded']
        .schema;
    expect(Object.keys(form.properties)).toEqual(
      expect.arrayContaining(['profile.firstName', 'config.locale', 'email.value', 'status']),
    );
    expect(checkForm(form, { 'profile.firstName': 'Ann', 'profile.cf_team': '' })).toBe(true);
    expect(checkForm(form, { 'profil.firstName': 'Ann' })).toBe(false);
  });

  test('served as made, once per vendor', () => {
    expect(JSON.parse(openApiJson('acme', '/api'))).toEqual(openApiDocument('acme', '/api'));
    expect(openApiJson('acme', '/api')).toBe(openApiJson('acme', '/api'));
    expect(openApiJson('acme', '/api')).not.toBe(openApiJson('service', '/api'));
  });
});

describe('the suites’ validating wrapper', () => {
  const get = (r: ReturnType<typeof answer>) => () =>
    checkAnswer(doc, 'GET', `/api/users/${user.id}`, r);

  test('accepts an answer the document describes', () => {
    expect(get(answer(200, `${V3}; charset=utf-8`, user))).not.toThrow();
    expect(
      get(
        answer(404, 'application/json', {
          identifier: 40408,
          statusCode: 404,
          type: 'NotFoundException',
          message: 'm',
        }),
      ),
    ).not.toThrow();
  });

  test('rejects a body that does not match the schema of its exact media type', () => {
    expect(get(answer(200, V3, { ...user, extra: 1 }))).toThrow(/must NOT have additional/);
    expect(get(answer(200, V3, { ...user, email: 'a@example.com' }))).toThrow(/email/);
    // A v3 body under the flat type's name: valid JSON, wrong shape for that media type.
    expect(get(answer(200, 'application/json', user))).toThrow(/does not match/);
    expect(get(answer(200, 'text/html', user))).toThrow(/not declared/);
  });

  test('rejects an undeclared status, a wrong error envelope, a missing required header', () => {
    expect(get(answer(201, V3, user))).toThrow(/status not in the document/);
    expect(
      get(
        answer(404, 'application/json', {
          identifier: 40000,
          statusCode: 404,
          type: 'NotFoundException',
          message: 'm',
        }),
      ),
    ).toThrow();
    const created = answer(201, V3, user);
    expect(() => checkAnswer(doc, 'POST', '/api/users', created)).toThrow(/Location/);
  });

  test('rejects a body type or a body where the document declares none', () => {
    const del = (r: ReturnType<typeof answer>) => () =>
      checkAnswer(doc, 'DELETE', '/api/users/x', r);
    expect(del(answer(202, undefined, undefined))).not.toThrow();
    expect(del({ ...answer(202, 'application/json', undefined) })).toThrow(/without a body/);
  });

  test('answers outside the document must be error envelopes', () => {
    expect(() => checkAnswer(doc, 'GET', '/api/nope', answer(200, 'application/json', {}))).toThrow(
      /lacks/,
    );
    expect(() =>
      checkAnswer(doc, 'PATCH', '/api/users/x', answer(405, 'text/plain', 'no')),
    ).toThrow(/error answer/);
  });
});

test("a request type's required fields are required in its body schema (user-invite.v2: role, config.locale)", () => {
  const invite =
    doc.paths['/users'].post.requestBody.content[
      'application/vnd.service.accessors.user-invite.v2+json'
    ].schema;
  const body = { email: { value: 'a@example.com' }, role: 'reader', config: { locale: 'de_DE' } };
  expect(checkForm(invite, body)).toBe(true);
  expect(checkForm(invite, { ...body, role: undefined })).toBe(false);
  expect(checkForm(invite, { ...body, config: {} })).toBe(false);
  // The same body is fine as the plain v3 type, which requires neither.
  const v3 = doc.paths['/users'].post.requestBody.content[V3].schema;
  expect(checkForm(v3, { email: { value: 'a@example.com' } })).toBe(true);
});
