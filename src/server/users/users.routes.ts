/** HTTP for /api/users: negotiate, validate, call the service, represent. Nothing else. */
import type Router from '@koa/router';
import { userListQuerySchema } from '../../contract/schemas.js';
import { PLATFORM_SORT_KEYS, represent, type UserRecord } from '../../contract/user.js';
import { parseUserBody, type UserOperation } from '../../contract/user-input.js';
import type { ServerKind } from '../../contract/versions.js';
import { validationError } from '../errors.js';
import { requireScopeOf } from '../http/auth.middleware.js';
import { readFormBody, readJsonBody } from '../http/body.js';
import { etagOf, ifMatch } from '../http/etag.js';
import { negotiate } from '../http/negotiation.js';
import { parseQuery } from '../http/query.js';
import type { AppContext, AppState } from '../http/state.js';
import type { UsersService } from './users.service.js';

const USER_SHAPES = ['flat', 'v2', 'v3'] as const;
type UserShape = (typeof USER_SHAPES)[number];

/** The version's user shape (registry entries of user endpoints always carry one). */
function userShape(shape: string): UserShape {
  return (USER_SHAPES as readonly string[]).includes(shape) ? (shape as UserShape) : 'v3';
}

async function userInput(ctx: AppContext, operation: UserOperation) {
  const contentType = ctx.state.contentType!;
  const body = contentType === 'form' ? await readFormBody(ctx) : await readJsonBody(ctx);
  const shape = contentType === 'form' ? 'v3' : userShape(contentType.shape);
  const requires = contentType === 'form' ? [] : contentType.requires;
  const parsed = parseUserBody(shape, operation, body, requires);
  if (!parsed.ok) throw validationError(parsed.issues, 'user');
  return parsed.input;
}

const view = (ctx: AppContext, user: UserRecord) =>
  represent(user, userShape(ctx.state.accept.shape));

/** The platform documents name keys alone: any other sort key is a 400 there. */
function checkPlatformSort(sort: { key: string }[] | undefined) {
  const bad = sort?.find((s) => !(PLATFORM_SORT_KEYS as readonly string[]).includes(s.key));
  if (bad) {
    throw validationError([
      { field: 'sort', message: `'${bad.key}' is not one of ${PLATFORM_SORT_KEYS.join(', ')}` },
    ]);
  }
}

export function registerUserRoutes(
  router: Router<AppState>,
  users: UsersService,
  vendor: string,
  kind: ServerKind = 'roster',
): void {
  // One guard per row kind of the contract's table (GET and PUT by id have the same rows).
  const read = requireScopeOf('GET /users');
  const write = requireScopeOf('POST /users');
  const remove = requireScopeOf('DELETE /users/{userId}');

  router.get('/api/users', read, negotiate('/users', 'GET', { vendor, kind }), async (ctx) => {
    const query = parseQuery(userListQuerySchema, ctx.query);
    if (kind === 'platform') checkPlatformSort(query.sort);
    const page = await users.list(ctx.state.scope, query);
    // Encoded once: Koa measures a string or object body (Buffer.byteLength) and encodes it again
    // as it writes, a cost on pages of up to 1,000 users. negotiate() sets the type after this.
    ctx.body = Buffer.from(JSON.stringify({ ...page, data: page.data.map((u) => view(ctx, u)) }));
  });

  router.post('/api/users', write, negotiate('/users', 'POST', { vendor, kind }), async (ctx) => {
    const user = await users.create(ctx.state.scope, await userInput(ctx, 'create'));
    ctx.status = 201;
    ctx.set('Location', `${ctx.state.origin}/api/users/${user.id}`);
    ctx.body = view(ctx, user);
  });

  router.options('/api/users', (ctx) => {
    ctx.set('Allow', 'OPTIONS, POST, GET');
    ctx.status = 204;
  });

  router.get(
    '/api/users/:userId',
    read,
    negotiate('/users/{userId}', 'GET', { vendor, kind }),
    async (ctx) => {
      const user = await users.get(ctx.state.scope, ctx.params.userId!);
      ctx.set('ETag', etagOf(user.version));
      ctx.body = view(ctx, user);
    },
  );

  router.put(
    '/api/users/:userId',
    write,
    negotiate('/users/{userId}', 'PUT', { vendor, kind, forms: true }),
    async (ctx) => {
      const input = await userInput(ctx, 'update');
      const check = ifMatch(ctx.get('If-Match'));
      const user = await users.update(ctx.state.scope, ctx.params.userId!, input, check);
      ctx.set('ETag', etagOf(user.version));
      ctx.body = view(ctx, user);
    },
  );

  router.delete(
    '/api/users/:userId',
    remove,
    negotiate('/users/{userId}', 'DELETE', { vendor, kind }),
    async (ctx) => {
      await users.remove(ctx.state.scope, ctx.params.userId!, ifMatch(ctx.get('If-Match')));
      // 202 without a body, and so without a body type.
      ctx.body = null;
      ctx.status = 202;
      ctx.remove('Content-Type');
    },
  );

  router.options('/api/users/:userId', (ctx) => {
    ctx.set('Allow', 'OPTIONS, PUT, GET, DELETE');
    ctx.status = 204;
  });
}
