import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { versionsOf } from '../../src/contract/versions.js';
import { dereference, validating } from '../helpers/openapi-validation.js';
import {
  jsonBody,
  type StartServer,
  type TestServer,
  USERS_V2,
  V2,
  V3,
} from '../helpers/server.js';

/** Versioning by media type, discovery documents and unknown routes, against any server. */
export function negotiationSuite(start: StartServer) {
  describe('negotiation over HTTP', () => {
    let s: TestServer;
    let acme: TestServer;
    beforeAll(async () => {
      s = validating(await start());
      acme = validating(await start({ vendor: 'acme' }));
      await s.req(
        'POST',
        '/api/users',
        jsonBody({ email: 'n@example.com', externalId: 'n-1', secret: 'password-1' }),
      );
    });
    afterAll(async () => {
      await s.close();
      await acme.close();
    });

    test('every registered Accept version of every user endpoint answers in its media type', async () => {
      for (const [path, endpoint] of [
        ['/api/users', '/users'],
        ['/api/users/n-1', '/users/{userId}'],
      ] as const) {
        for (const entry of versionsOf(endpoint, 'GET', 'accept')) {
          const type = entry.entity
            ? `application/vnd.service.accessors.${entry.entity}.${entry.version}+json`
            : 'application/json';
          const r = await s.req('GET', path, { headers: { accept: type } });
          expect(r.status, `${path} ${type}`).toBe(200);
          expect(r.headers['content-type']).toContain(type);
          expect(r.headers.deprecation === 'true').toBe(entry.stage === 'deprecated');
        }
      }
    });

    test('406 lists the supported types; the list media type is not a single-user type', async () => {
      const r = await s.req('GET', '/api/users', { headers: { accept: V3 } });
      expect(r.status).toBe(406);
      expect(r.json).toMatchObject({
        identifier: 40600,
        statusCode: 406,
        type: 'NotAcceptableException',
      });
      expect(r.json.message).toContain(USERS_V2);
      expect(
        (await s.req('GET', '/api/users/n-1', { headers: { accept: 'application/xml' } })).status,
      ).toBe(406);
      expect((await s.req('DELETE', '/api/users/n-1', { headers: { accept: V3 } })).status).toBe(
        406,
      );
    });

    test('415 for unsupported request media types, forms only where allowed', async () => {
      const xml = await s.req('POST', '/api/users', {
        headers: { 'content-type': 'application/xml' },
        body: '<u/>',
      });
      expect(xml.status).toBe(415);
      expect(xml.json).toMatchObject({ identifier: 41500, type: 'UnsupportedMediaTypeException' });
      const form = await s.req('POST', '/api/users', {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'email=f@example.com',
      });
      expect(form.status).toBe(415);
    });

    test('request and response versions are independent (Content-Type v2, Accept v3)', async () => {
      const r = await s.req('POST', '/api/users', {
        headers: { 'content-type': V2, accept: V3 },
        body: JSON.stringify({ email: 'mix@example.com', userName: 'mixer' }),
      });
      expect(r.status).toBe(201);
      expect(r.json.userName).toEqual({ value: 'mixer', source: 'user' });
    });

    test('the vendor word is configurable', async () => {
      const acmeV3 = 'application/vnd.acme.accessors.user.v3+json';
      const r = await acme.req('POST', '/api/users', {
        headers: { 'content-type': acmeV3, accept: acmeV3 },
        body: JSON.stringify({ email: 'a@example.com' }),
      });
      expect(r.status).toBe(201);
      expect(r.headers['content-type']).toContain(acmeV3);
      expect(
        (await acme.req('GET', `/api/users/${r.json.id}`, { headers: { accept: V3 } })).status,
      ).toBe(406);
    });

    test('GET /api lists every version; /api/openapi.json is OpenAPI 3.1 from the same registry', async () => {
      const api = await s.req('GET', '/api', { token: null });
      expect(api.status).toBe(200);
      expect(api.json.versions).toContainEqual({
        endpoint: '/users/{userId}',
        method: 'GET',
        header: 'Accept',
        mediaType: V2,
        version: 'v2',
        stage: 'deprecated',
      });
      const doc = await s.req('GET', '/api/openapi.json', { token: null });
      expect(doc.json.openapi).toBe('3.1.0');
      expect(doc.json.servers).toEqual([{ url: '/api' }]);
      const put = dereference(doc.json).paths['/users/{userId}'].put;
      expect(Object.keys(put.requestBody.content)).toEqual(
        expect.arrayContaining(['application/json', V2, V3, 'application/x-www-form-urlencoded']),
      );
      expect(put.requestBody.content[V3].schema.properties.profile).toBeDefined();
      expect(Object.keys(doc.json.paths['/users'].get.responses['200'].content)).toEqual([
        'application/json',
        USERS_V2,
      ]);
    });

    test('OPTIONS on every path of the document answers 204 with Allow and no body; HEAD wherever GET is', async () => {
      const doc = (await s.req('GET', '/api/openapi.json', { token: null })).json;
      for (const [template, item] of Object.entries<Record<string, unknown>>(doc.paths)) {
        const path = `${item.servers ? '' : '/api'}${template === '/' ? '' : template}`.replace(
          /\{\w+\}/g,
          'x',
        );
        const options = await s.req('OPTIONS', path);
        expect(options.status, path).toBe(204);
        expect(options.headers.allow, path).toMatch(/^[A-Z, ]+$/);
        expect(options.headers['content-type'], path).toBeUndefined();
        // Answers to HEAD are checked against the document by the validating wrapper.
        await s.req('HEAD', path);
      }
    });

    test('unknown routes are 404 envelopes', async () => {
      for (const path of ['/', '/api/nope', '/api/users/a/b', '/favicon.ico']) {
        const r = await s.req('GET', path);
        expect(r.status, path).toBe(404);
        expect(r.json.identifier).toBe(40408);
      }
    });
  });
}
