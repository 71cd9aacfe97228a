/**
 * fast-check arbitraries for hostile requests to every route: methods, paths (with real and
 * foreign ids), query strings, headers, media types and JSON / form / multipart / garbage bodies.
 */
import fc from 'fast-check';

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  auth: 'fuzz' | 'readOnly' | 'otherTenant' | 'none' | 'garbage';
}

/** Ids the fuzzer aims at: the victim's (another branch) and the fuzzer's own. */
export interface Targets {
  victimId: string;
  victimExternalId: string;
  victimMediumId: string;
  victimPublicId: string;
  ownUserId: string;
  ownMediumId: string;
}

const VENDOR = 'application/vnd.service.accessors';
const MEDIA_TYPES = [
  'application/json',
  `${VENDOR}.user.v3+json`,
  `${VENDOR}.user.v2+json`,
  `${VENDOR}.users.v2+json`,
  `${VENDOR}.user-invite.v2+json`,
  `${VENDOR}.user-update.v1+json`,
  `${VENDOR}.user.v9+json`,
  'application/vnd.other.accessors.user.v3+json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=fuzzb',
  'multipart/form-data',
  'text/plain',
  'application/json; charset=latin1',
  'application/*',
  '*/*',
  'image/*, text/*;q=0',
  ';;;',
  'application/json; q=abc',
];

const segment = fc.oneof(
  fc.constantFrom('..', '.', '%2e%2e', '%00', '%ff', 'a%2Fb', '~', '%E2%80%AE', 'null', '0'),
  fc.stringMatching(/^[A-Za-z0-9_.~-]{1,12}$/),
  fc.string({ maxLength: 8 }).map(encodeURIComponent),
);

function path(t: Targets) {
  const id = fc.oneof(
    fc.constantFrom(t.victimId, t.victimExternalId, t.ownUserId, t.victimMediumId, t.ownMediumId),
    fc.stringMatching(/^[0-9a-f]{24}$/),
    segment,
  );
  return fc.oneof(
    fc.constantFrom(
      '/api',
      '/api/',
      '/api/openapi.json',
      '/api/branch',
      '/api/users',
      '/api/media',
    ),
    id.map((x) => `/api/users/${x}`),
    id.map((x) => `/api/media/${x}`),
    fc.constant(`/cdn/${t.victimPublicId}`),
    fc.tuple(segment, segment, id, segment).map((p) => `/cdn/${p.join('/')}`),
    id.map((x) => `/cdn/${t.victimPublicId.split('/').slice(0, 2).join('/')}/${x}/t_preview/p.jpg`),
    fc.array(segment, { minLength: 1, maxLength: 5 }).map((p) => `/${p.join('/')}`),
    fc.array(segment, { maxLength: 3 }).map((p) => `/api/users/${p.join('/')}`),
  );
}

const queryValue = fc.oneof(
  fc.constantFrom('0', '-1', '1001', '1e3', 'NaN', '', 'lastName_ASC', 'x_DESC_y_ASC', 'all'),
  fc.constantFrom('activated,pending', 'deleted', 'ann*', '"', 'OR', 'NEAR(', '*'),
  fc.string({ maxLength: 20 }),
);
const query = fc
  .array(
    fc.tuple(
      fc.oneof(
        fc.constantFrom('limit', 'offset', 'sort', 'status', 'query', 'expires', 'signature'),
        fc.string({ maxLength: 6 }),
      ),
      queryValue,
    ),
    { maxLength: 4 },
  )
  .map((pairs) =>
    pairs.length === 0 ? '' : `?${new URLSearchParams(pairs as [string, string][]).toString()}`,
  );

/** A user-like JSON value: real field names with wrong, odd and right values, or any JSON. */
const userish = fc.record(
  {
    email: fc.oneof(fc.emailAddress(), fc.string(), fc.constant(null)),
    userName: fc.oneof(fc.string({ maxLength: 20 }), fc.integer()),
    externalId: fc.oneof(fc.string({ maxLength: 10 }), fc.constant(null)),
    secret: fc.string({ maxLength: 12 }),
    status: fc.constantFrom('activated', 'deactivated', 'deleted', 'pending', 1),
    sendMail: fc.constantFrom(false, 'no', null),
    role: fc.constantFrom('reader', 'admin', 'editor', { type: 'reader' }),
    profile: fc.dictionary(
      fc.oneof(fc.constantFrom('firstName', 'lastName', 'position', '__proto__'), fc.string()),
      fc.oneof(fc.string({ maxLength: 30 }), fc.constant(null), fc.integer()),
      { maxKeys: 4 },
    ),
    id: fc.stringMatching(/^[0-9a-f]{24}$/),
  },
  { requiredKeys: [] },
);

const multipart = fc
  .array(
    fc.tuple(
      fc.constantFrom('file', 'metaData', 'profile.firstName', 'x'),
      fc.option(fc.constantFrom('a.png', '../../etc/passwd', 'x.svg', ''), { nil: undefined }),
      fc.uint8Array({ maxLength: 200 }),
    ),
    { maxLength: 3 },
  )
  .map((parts) => {
    const chunks: Buffer[] = [];
    for (const [name, fileName, data] of parts) {
      const disposition = fileName === undefined ? '' : `; filename="${fileName}"`;
      chunks.push(
        Buffer.from(
          `--fuzzb\r\nContent-Disposition: form-data; name="${name}"${disposition}\r\n\r\n`,
        ),
        Buffer.from(data),
        Buffer.from('\r\n'),
      );
    }
    chunks.push(Buffer.from('--fuzzb--\r\n'));
    return Buffer.concat(chunks);
  });

const body = fc.oneof(
  fc.constant(undefined),
  userish.map((u) => Buffer.from(JSON.stringify(u))),
  fc.json({ maxDepth: 3 }).map((j) => Buffer.from(j)),
  fc
    .dictionary(fc.string({ maxLength: 16 }), fc.string({ maxLength: 16 }), { maxKeys: 4 })
    .map((d) => Buffer.from(new URLSearchParams(d).toString())),
  fc
    .dictionary(
      fc.constantFrom('profile.firstName', 'email', 'profile.__proto__', 'status', 'custom.x'),
      fc.string({ maxLength: 16 }),
    )
    .map((d) => Buffer.from(new URLSearchParams(d).toString())),
  multipart,
  fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
  fc
    .constantFrom('{', '[]', 'null', '{"email":', '\u0000', '{"a":1}{"b":2}')
    .map((s) => Buffer.from(s)),
);

/** Header values a client can send (visible ASCII and spaces), some of them hostile. */
const headerValue = fc.oneof(
  fc.stringMatching(/^[\x20-\x7e]{0,40}$/),
  fc.constantFrom('bytes=0-0,1-1', 'bytes=-5', 'bytes=99999999-', '*', 'W/"x"', 'evil.example'),
);

export function fuzzRequest(t: Targets): fc.Arbitrary<FuzzRequest> {
  return fc.record({
    method: fc.constantFrom(
      'GET',
      'GET',
      'POST',
      'POST',
      'PUT',
      'DELETE',
      'PATCH',
      'HEAD',
      'OPTIONS',
      'PROPFIND',
      'TRACE',
      'FUZZ',
    ),
    path: fc.tuple(path(t), query).map(([p, q]) => p + q),
    headers: fc
      .record(
        {
          accept: fc.constantFrom(...MEDIA_TYPES),
          'content-type': fc.constantFrom(...MEDIA_TYPES),
          range: headerValue,
          'if-none-match': headerValue,
          'if-range': headerValue,
          host: fc.constantFrom('evil.example', 'localhost', 'a.example:1'),
          'x-fuzz': headerValue,
        },
        { requiredKeys: [] },
      )
      .map((h) => h as Record<string, string>),
    body,
    auth: fc.constantFrom('fuzz', 'fuzz', 'fuzz', 'readOnly', 'otherTenant', 'none', 'garbage'),
  });
}

/** A raw HTTP/1.1 request, malformed in the ways Node's parser or Koa may meet. */
export function rawRequest(t: Targets): fc.Arbitrary<string> {
  const target = fc.oneof(
    path(t),
    fc.constantFrom('*', 'http://evil.example/api/users', '/api/users?a=%', '//api', '/%', ''),
    fc.stringMatching(/^\/[\x21-\x7e]{0,30}$/),
  );
  const method = fc.oneof(
    fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PROPFIND', 'TRACE', 'get', 'G\tET', 'CONNECT'),
    fc.stringMatching(/^[A-Z]{1,10}$/),
  );
  const version = fc.constantFrom('HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/9', 'http/1.1', '');
  const header = fc.oneof(
    fc.constantFrom(
      'Content-Length: 5',
      'Content-Length: -1',
      'Content-Length: 1, 2',
      'Transfer-Encoding: chunked',
      'Transfer-Encoding: gzip',
      'Expect: 100-continue',
      'Authorization: Basic',
      'Authorization: Bearer x',
      ' folded: continuation',
      'no colon here',
      'X: \u0001',
      `X-Big: ${'a'.repeat(20_000)}`,
      'Content-Type: application/json',
      'Accept: application/vnd.service.accessors.user.v3+json',
    ),
    fc
      .tuple(fc.stringMatching(/^[A-Za-z-]{1,12}$/), fc.stringMatching(/^[\x20-\x7e]{0,30}$/))
      .map(([k, v]) => `${k}: ${v}`),
  );
  return fc
    .record({
      method,
      target,
      version,
      headers: fc.array(header, { maxLength: 4 }),
      body: fc.constantFrom('', '{"a":', 'hello', '0\r\n\r\n', '{}'),
    })
    .map(({ method, target, version, headers, body }) => {
      // The body always matches what the headers promise (or is the terminating chunk), so the
      // server never waits for bytes that will not come.
      const lines = headers.filter((h) => !/^content-length|^transfer-encoding/i.test(h));
      const chunked = headers.some((h) => /^transfer-encoding: chunked/i.test(h));
      const sent = chunked ? '0\r\n\r\n' : body;
      if (chunked) lines.push('Transfer-Encoding: chunked');
      else if (sent) lines.push(`Content-Length: ${Buffer.byteLength(sent)}`);
      const line = [method, target, version].filter(Boolean).join(' ');
      return `${line}\r\nHost: localhost\r\nConnection: close\r\n${lines.map((l) => `${l}\r\n`).join('')}\r\n${sent}`;
    });
}

/** A user that may well be valid: the fuzz then reaches the store, uniqueness and statuses. */
const plausibleUser = fc.record(
  {
    email: fc.stringMatching(/^[a-z]{1,8}[0-9]{0,3}@example\.(com|org)$/),
    userName: fc.stringMatching(/^[a-z][a-z0-9._-]{0,15}$/),
    externalId: fc.stringMatching(/^[A-Za-z0-9-]{1,8}$/),
    secret: fc.string({ minLength: 1, maxLength: 12 }),
    sendMail: fc.constant(false),
    profile: fc.record(
      {
        firstName: fc.string({ minLength: 1, maxLength: 30 }),
        lastName: fc.oneof(fc.string({ maxLength: 30 }), fc.constant(null)),
        position: fc.string({ maxLength: 30 }),
        custom1: fc.string({ maxLength: 30 }),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ['email'] },
);

/** Requests that pass negotiation and authentication, so the fuzz reaches validation and rules. */
export function userWrite(t: Targets): fc.Arbitrary<FuzzRequest> {
  const jsonTypes = MEDIA_TYPES.slice(0, 6).filter((m) => !m.includes('users.v2'));
  const form = fc
    .dictionary(
      fc.constantFrom(
        'email',
        'userName',
        'externalId',
        'status',
        'secret',
        'profile.firstName',
        'profile.position',
        'profile.custom1',
        'config.locale',
        'role',
      ),
      fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('', 'activated', 'deactivated')),
      { maxKeys: 4 },
    )
    .map((d) => Buffer.from(new URLSearchParams(d).toString()));
  return fc.oneof(
    fc
      .record({
        // POST creates; PUT aims at the fuzzer's own user and at the victim (404 expected).
        target: fc.constantFrom<[string, string]>(
          ['POST', '/api/users'],
          ['POST', '/api/users'],
          ['PUT', `/api/users/${t.ownUserId}`],
          ['PUT', `/api/users/${t.victimId}`],
        ),
        headers: fc
          .constantFrom(...jsonTypes)
          .map((ct) => ({ 'content-type': ct, accept: `${MEDIA_TYPES[1]}` })),
        body: fc.oneof(userish, plausibleUser).map((u) => Buffer.from(JSON.stringify(u))),
        auth: fc.constant('fuzz' as const),
      })
      .map(({ target: [method, path], ...rest }) => ({ method, path, ...rest })),
    fc.record({
      method: fc.constant('PUT'),
      path: fc.constantFrom(`/api/users/${t.ownUserId}`, `/api/users/${t.victimExternalId}`),
      headers: fc.constant({ 'content-type': 'application/x-www-form-urlencoded' }),
      body: form,
      auth: fc.constant('fuzz' as const),
    }),
  );
}
