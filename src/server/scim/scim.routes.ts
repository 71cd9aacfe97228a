/**
 * HTTP for /scim/v2 (RFC 7644): bodies in, the SCIM service, resources out. Errors leave in the
 * SCIM Error schema (app.ts gives the error middleware this prefix's dialect).
 */
import type Router from '@koa/router';
import { SCIM_BASE_PATH } from '../../contract/scim.js';
import { AppError } from '../errors.js';
import { requireScopeOf } from '../http/auth.middleware.js';
import { readJsonBody } from '../http/body.js';
import { etagOf, ifMatch } from '../http/etag.js';
import type { AppContext, AppState } from '../http/state.js';
import { LIST_RESPONSE, prop, SEARCH_REQUEST } from './attributes.js';
import { MAX_RESULTS, serviceProviderConfig, userResourceType, userSchemas } from './discovery.js';
import { ScimError } from './errors.js';
import { toScim } from './resource.js';
import type { ScimPage, ScimService } from './scim.service.js';

export const SCIM_PREFIX = SCIM_BASE_PATH;
export const SCIM_TYPE = 'application/scim+json';

const base = (ctx: AppContext) => `${ctx.state.origin}${SCIM_PREFIX}`;

/** SCIM's own type, or plain JSON to a client that asks for only that. */
function answer(ctx: AppContext, body: unknown, status = 200) {
  ctx.status = status;
  ctx.type =
    ctx.accepts(SCIM_TYPE, 'application/json') === 'application/json'
      ? 'application/json'
      : SCIM_TYPE;
  ctx.body = body;
}

async function scimBody(ctx: AppContext): Promise<unknown> {
  if (!ctx.is(SCIM_TYPE, 'application/json')) {
    throw new ScimError(
      'unsupportedMediaType',
      undefined,
      `send the body as ${SCIM_TYPE} (or application/json), not '${ctx.get('Content-Type') || 'nothing'}'`,
    );
  }
  const body = await readJsonBody(ctx).catch((err: unknown) => {
    // A body that is no JSON at all is a syntax error in SCIM's words (RFC 7644 §3.12).
    if (err instanceof AppError && err.kind === 'validation') {
      throw new ScimError('validation', 'invalidSyntax', err.message, err.details);
    }
    throw err;
  });
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ScimError('validation', 'invalidSyntax', 'the request body must be a JSON object');
  }
  return body;
}

/** startIndex and count as RFC 7644 §3.4.2.4 reads them: below 1 is 1, below 0 is 0. */
function paging(startIndex: unknown, count: unknown) {
  const int = (name: string, v: unknown, fallback: number) => {
    if (v === undefined || v === null || v === '') return fallback;
    const n = typeof v === 'number' ? v : /^-?\d+$/.test(String(v)) ? Number(v) : Number.NaN;
    if (!Number.isSafeInteger(n)) {
      throw new ScimError('validation', 'invalidValue', `${name} must be an integer`);
    }
    return n;
  };
  return {
    startIndex: Math.max(1, int('startIndex', startIndex, 1)),
    count: Math.min(MAX_RESULTS, Math.max(0, int('count', count, 100))),
  };
}

function listResponse(ctx: AppContext, page: ScimPage, startIndex: number) {
  answer(ctx, {
    schemas: [LIST_RESPONSE],
    totalResults: page.total,
    startIndex,
    itemsPerPage: page.users.length,
    Resources: page.users.map((u) => toScim(u, `${base(ctx)}/Users/${u.id}`)),
  });
}

const one = (ctx: AppContext, user: Parameters<typeof toScim>[0], status = 200) => {
  const location = `${base(ctx)}/Users/${user.id}`;
  if (status === 201) ctx.set('Location', location);
  ctx.set('ETag', etagOf(user.version));
  answer(ctx, toScim(user, location), status);
};

export interface ScimRouteOptions {
  /** Whether a user SCIM creates gets an invitation mail (the tenant's setting). */
  invitations: (ctx: AppContext) => boolean;
}

export function registerScimRoutes(
  router: Router<AppState>,
  scim: ScimService,
  { invitations }: ScimRouteOptions,
): void {
  // Reads of any SCIM resource need users:read, writes users:write (contract/scopes.ts).
  const read = requireScopeOf('GET /scim/v2/Users');
  const write = requireScopeOf('POST /scim/v2/Users');
  const p = SCIM_PREFIX;

  router.get(`${p}/ServiceProviderConfig`, (ctx) => answer(ctx, serviceProviderConfig(base(ctx))));
  router.get(`${p}/ResourceTypes`, (ctx) =>
    answer(ctx, {
      schemas: [LIST_RESPONSE],
      totalResults: 1,
      startIndex: 1,
      itemsPerPage: 1,
      Resources: [userResourceType(base(ctx))],
    }),
  );
  router.get(`${p}/ResourceTypes/User`, (ctx) => answer(ctx, userResourceType(base(ctx))));
  router.get(`${p}/Schemas`, (ctx) => {
    const schemas = userSchemas(base(ctx));
    answer(ctx, {
      schemas: [LIST_RESPONSE],
      totalResults: schemas.length,
      startIndex: 1,
      itemsPerPage: schemas.length,
      Resources: schemas,
    });
  });
  router.get(`${p}/Schemas/:id`, (ctx) => {
    const schema = userSchemas(base(ctx)).find((s) => s.id === ctx.params.id);
    if (!schema) throw new ScimError('notFound', undefined, `no schema '${ctx.params.id}'`);
    answer(ctx, schema);
  });
  router.all(`${p}/Groups{/*rest}`, () => {
    throw new ScimError(
      'notFound',
      undefined,
      'Groups are not supported by this endpoint (see /ResourceTypes)',
    );
  });

  router.all(`${p}/Me{/*rest}`, () => {
    throw new ScimError(
      'notImplemented',
      undefined,
      '/Me is not supported: address a user as /Users/<id> (RFC 7644 §3.11)',
    );
  });

  router.all(`${p}/Bulk{/*rest}`, () => {
    throw new ScimError(
      'notImplemented',
      undefined,
      'Bulk is not supported (ServiceProviderConfig says bulk.supported false): send each operation as its own request',
    );
  });

  router.get(`${p}/Users`, read, async (ctx) => {
    const filter = typeof ctx.query.filter === 'string' ? ctx.query.filter : undefined;
    const { startIndex, count } = paging(ctx.query.startIndex, ctx.query.count);
    listResponse(ctx, await scim.list(ctx.state.scope, { filter, startIndex, count }), startIndex);
  });

  router.post(`${p}/Users/.search`, read, async (ctx) => {
    const body = await scimBody(ctx);
    const schemas = prop(body, 'schemas');
    if (!Array.isArray(schemas) || !schemas.includes(SEARCH_REQUEST)) {
      throw new ScimError(
        'validation',
        'invalidSyntax',
        `a search body names the schema ${SEARCH_REQUEST}`,
      );
    }
    const filter = prop(body, 'filter');
    if (filter !== undefined && typeof filter !== 'string') {
      throw new ScimError('validation', 'invalidFilter', 'filter must be a string');
    }
    const { startIndex, count } = paging(prop(body, 'startIndex'), prop(body, 'count'));
    listResponse(ctx, await scim.list(ctx.state.scope, { filter, startIndex, count }), startIndex);
  });

  router.post(`${p}/Users`, write, async (ctx) => {
    const user = await scim.create(ctx.state.scope, await scimBody(ctx), invitations(ctx));
    one(ctx, user, 201);
  });

  router.get(`${p}/Users/:id`, read, async (ctx) => {
    one(ctx, await scim.get(ctx.state.scope, ctx.params.id!));
  });

  router.put(`${p}/Users/:id`, write, async (ctx) => {
    const body = await scimBody(ctx);
    const check = ifMatch(ctx.get('If-Match'));
    one(ctx, await scim.replace(ctx.state.scope, ctx.params.id!, body, check));
  });

  router.patch(`${p}/Users/:id`, write, async (ctx) => {
    const body = await scimBody(ctx);
    const check = ifMatch(ctx.get('If-Match'));
    one(ctx, await scim.patch(ctx.state.scope, ctx.params.id!, body, check));
  });

  router.delete(`${p}/Users/:id`, write, async (ctx) => {
    await scim.remove(ctx.state.scope, ctx.params.id!, ifMatch(ctx.get('If-Match')));
    ctx.status = 204;
    ctx.body = null;
  });
}
