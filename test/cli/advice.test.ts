/**
 * The CLI's advice on client errors (cli/advice.ts). The texts below are what the client's
 * messages said before the advice moved out of the client: the person at the terminal reads
 * exactly the same, while the client's own message says only what went wrong.
 */
import { describe, expect, it } from 'vitest';
import { userMessage } from '../../src/cli/advice.js';
import {
  ApiError,
  type ClientError,
  MediaAuthError,
  NetworkError,
  PermissionError,
  RequiredFieldsError,
  ResponseFormatError,
} from '../../src/client/errors.js';

const CASES: [string, ClientError, string][] = [
  [
    '401',
    new ApiError({
      status: 401,
      method: 'GET',
      url: 'http://h.test/api/users/x',
      envelope: {
        identifier: 40102,
        statusCode: 401,
        message: 'This endpoint requires authentication',
        type: 'NotLoggedInException',
      },
    }),
    'This endpoint requires authentication (401 NotLoggedInException, GET http://h.test/api/users/x)\nThe token was rejected (missing, invalid, revoked or without the needed scope): run `roster login`, or check --profile / ROSTER_TOKEN.',
  ],
  [
    '401 to a token that otherwise works (the platform: no scopes listed)',
    new PermissionError(
      new ApiError({
        status: 401,
        method: 'GET',
        url: 'https://acme.test/api/media',
        envelope: {
          identifier: 40102,
          statusCode: 401,
          message: 'This endpoint requires authentication',
          type: 'NotLoggedInException',
        },
      }),
      { scope: 'media:read' },
    ),
    'This endpoint requires authentication (401 NotLoggedInException, GET https://acme.test/api/media)\nThe token is valid but lacks the media:read permission, which this request needs. Use a token that has it: on a local service create one with `roster tokens create --scopes media:read`; on the platform, ask its admin for one.',
  ],
  [
    '429 with Retry-After',
    new ApiError({
      status: 429,
      method: 'GET',
      url: 'http://h.test/api/users',
      retryAfterMs: 2500,
    }),
    'Too Many Requests (429, GET http://h.test/api/users)\nThe service is rate-limiting this token: wait a little, or lower --concurrency.\nThe service asked to retry after 3 s.',
  ],
  [
    '409 on a unique field',
    new ApiError({
      status: 409,
      method: 'POST',
      url: 'http://h.test/api/users',
      envelope: {
        identifier: 40900,
        statusCode: 409,
        message: 'conflict',
        type: 'ConflictException',
        details: [{ field: 'email', message: 'is already in use' }],
      },
    }),
    'conflict (409 ConflictException, POST http://h.test/api/users)\n  email: is already in use\nAnother user of this tenant already has this email.',
  ],
  [
    'an HTML page',
    new ResponseFormatError({
      status: 200,
      method: 'GET',
      url: 'http://h.test/users',
      contentType: 'text/html',
      title: 'nginx',
    }),
    'GET http://h.test/users answered 200 with text/html, not JSON ("nginx"). This does not look like the Roster API: check the base URL (`--base-url` or the profile); it must end with /api, e.g. https://tenant.example.com/api.',
  ],
  [
    // Met through haproxy with every replica stopped: its 503 page is about what is behind it.
    "a load balancer's 503 page",
    new ResponseFormatError({
      status: 503,
      method: 'GET',
      url: 'http://h.test/api/users',
      contentType: 'text/html',
    }),
    'GET http://h.test/api/users answered 503 with text/html, not JSON. Something in front of the service (a load balancer or proxy) could not reach it: the service may be stopped or restarting; try again, or check that `roster serve` runs behind it.',
  ],
  [
    'connection refused',
    new NetworkError({
      method: 'GET',
      url: 'http://127.0.0.1:9/api/users',
      code: 'ECONNREFUSED',
      cause: null,
      attempts: 4,
      timeoutMs: 60000,
    }),
    'Could not connect to http://127.0.0.1:9: connection refused. Is the service running (`roster serve`), and is the base URL right? (4 attempts) [GET http://127.0.0.1:9/api/users]',
  ],
  [
    'no answer',
    new NetworkError({
      method: 'GET',
      url: 'http://h.test/api/users',
      code: 'UND_ERR_HEADERS_TIMEOUT',
      cause: null,
      attempts: 1,
      timeoutMs: 60000,
    }),
    'No answer from http://h.test: no answer within 60 s (timeout). The service may be overloaded; try again later, or allow longer with --timeout SECONDS (ROSTER_TIMEOUT). [GET http://h.test/api/users]',
  ],
  [
    'the proxy refused (its own advice, none of the CLI)',
    new NetworkError({
      method: 'GET',
      url: 'http://h.test/api/users',
      code: 'ECONNREFUSED',
      cause: null,
      attempts: 1,
      timeoutMs: 60000,
      via: { proxy: 'http://p.test:3128', source: 'HTTPS_PROXY' },
    }),
    'Could not connect to the proxy http://p.test:3128 (HTTPS_PROXY): connection refused. Check HTTPS_PROXY, or list h.test in NO_PROXY if it is reachable without the proxy. [GET http://h.test/api/users]',
  ],
  [
    'a media host not allowed the token',
    new MediaAuthError({
      status: 401,
      url: 'https://cdn.test/t/p.png',
      apiOrigin: 'https://h.test',
      withheld: 'not-listed',
    }),
    'GET https://cdn.test/t/p.png answered 401: this media URL needs authentication. Roster sends the API token to the API\'s origin (https://h.test) only, not to cdn.test. If the platform serves its media from cdn.test and you trust that host with the token, turn cdnAuth on for it: `roster profiles cdn-auth cdn.test` (or ROSTER_CDN_AUTH=cdn.test); see README "Authenticated media URLs".',
  ],
  [
    'a media URL refusing the token',
    new MediaAuthError({
      status: 403,
      url: 'https://h.test/cdn/p.png',
      apiOrigin: 'https://h.test',
      serverMessage: 'no',
    }),
    'GET https://h.test/cdn/p.png answered 403: this media URL needs authentication. It refused the API token: no. Check that the token may read media (the media:read scope: `roster auth status`) and that it belongs to this deployment.',
  ],
  [
    'required fields',
    new RequiredFieldsError({
      fields: ['role', 'config.locale'],
      mediaType: 'application/vnd.x.user-invite.v2+json',
      method: 'POST',
      url: 'http://h.test/api/users',
    }),
    'the service takes this request as application/vnd.x.user-invite.v2+json, which requires role and config.locale; give them, or set defaults for the profile (`roster profiles set --role ROLE --locale xx_YY`)',
  ],
];

describe('userMessage: what the terminal shows is what it showed before', () => {
  it.each(CASES)('%s', (_what, err, shown) => expect(userMessage(err)).toBe(shown));
});

describe("the client's own messages name no CLI command, flag or variable", () => {
  it.each(CASES)('%s', (_what, err) => {
    expect(err.message).not.toMatch(/roster |--[a-z]|ROSTER_/);
    expect(shownStartsWithFacts(err)).toBe(true);
  });
});

/** The advice only adds: the client's message is still there, in order, around it. */
function shownStartsWithFacts(err: ClientError): boolean {
  const shown = userMessage(err);
  if (err instanceof NetworkError) {
    return shown.startsWith(err.summary) && shown.endsWith(err.message.slice(err.summary.length));
  }
  return shown.startsWith(err.message);
}
