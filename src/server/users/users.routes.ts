/** HTTP for /api/users: negotiate, validate, call the service, represent. Nothing else. */
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { type EndpointDescriptor, USER_ENDPOINTS } from '../../contract/endpoints/index.js';
import { userListQuerySchema } from '../../contract/schemas.js';
import { PLATFORM_SORT_KEYS, represent, type UserRecord } from '../../contract/user.js';
import { parseUserBody, type UserOperation } from '../../contract/user-input.js';
import type { ServerKind } from '../../contract/versions.js';
import { validationError } from '../errors.js';
import { readFormBody, readJsonBody } from '../http/body.js';
import { routeEndpoint } from '../http/endpoint-route.js';
import { etagOf, ifMatch } from '../http/etag.js';
import { parseQuery } from '../http/query.js';
import type { AppContext, AppState } from '../http/state.js';
import { type AvatarMediaService, linkedMedia } from './avatars.js';
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

/** Avatars made of the branch's media (avatars.ts); without it, avatars are stored as given. */
export interface AvatarRouting {
  service: AvatarMediaService;
  cdnBase: (ctx: AppContext) => string;
}

/**
 * The platform documents name keys alone: any other sort key is a 400 there. It has no cursor
 * paging either: `after` is an unknown parameter, as any other.
 */
function checkPlatformOnly({ sort, after }: { sort?: { key: string }[]; after?: string }) {
  if (after !== undefined)
    throw validationError([{ field: 'after', message: 'is not a known field' }]);
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
  avatars?: AvatarRouting,
): void {
  const view = (ctx: AppContext, user: UserRecord) => {
    const shape = userShape(ctx.state.accept.shape);
    // A user without an avatar made of media (most) is answered without the media lookup's
    // promise, nor its CDN base.
    if (!avatars || linkedMedia(user.avatar).length === 0) return represent(user, shape);
    return avatars.service
      .present(ctx.state.scope, user, avatars.cdnBase(ctx))
      .then((shown) => represent(shown, shape));
  };
  const input = async (ctx: AppContext, operation: UserOperation) => {
    const parsed = await userInput(ctx, operation);
    if (avatars && parsed.avatar !== undefined) {
      const base = avatars.cdnBase(ctx);
      const { scope } = ctx.state;
      // The media the avatar has now were taken when it was set: sent back with an edit (a
      // client writing the URLs it read), they are not checked again.
      const kept =
        operation === 'update' && parsed.avatar !== null
          ? await users.get(scope, ctx.params.userId!).then(
              (u) => linkedMedia(u.avatar),
              () => [],
            )
          : [];
      parsed.avatar = await avatars.service.link(scope, parsed.avatar, base, kept);
    }
    return parsed;
  };
  const route = (d: EndpointDescriptor, handler: Middleware<AppState>) =>
    routeEndpoint(router, d, { vendor, kind }, handler);

  route(USER_ENDPOINTS.list, async (ctx) => {
    const query = parseQuery(userListQuerySchema, ctx.query);
    if (kind === 'platform') checkPlatformOnly(query);
    const { next, ...page } = await users.list(ctx.state.scope, query);
    if (next && kind !== 'platform') {
      // The same list from the next page on: every parameter kept but the page's start.
      const link = new URLSearchParams(ctx.querystring);
      link.delete('offset');
      link.set('after', next);
      ctx.set('Link', `<${ctx.state.origin}/api/users?${link}>; rel="next"`);
      Object.assign(page, { next });
    }
    // Encoded once: Koa measures a string or object body (Buffer.byteLength) and encodes it again
    // as it writes, a cost on pages of up to 1,000 users. negotiate() sets the type after this.
    // Avatars' media are looked up together (a PostgreSQL pool answers them side by side).
    const data = await Promise.all(page.data.map((u) => view(ctx, u)));
    ctx.body = Buffer.from(JSON.stringify({ ...page, data }));
  });

  route(USER_ENDPOINTS.create, async (ctx) => {
    const user = await users.create(ctx.state.scope, await input(ctx, 'create'));
    ctx.status = 201;
    ctx.set('Location', `${ctx.state.origin}/api/users/${user.id}`);
    ctx.body = await view(ctx, user);
  });

  route(USER_ENDPOINTS.get, async (ctx) => {
    const user = await users.get(ctx.state.scope, ctx.params.userId!);
    ctx.set('ETag', etagOf(user.version));
    ctx.body = await view(ctx, user);
  });

  route(USER_ENDPOINTS.update, async (ctx) => {
    const change = await input(ctx, 'update');
    const check = ifMatch(ctx.get('If-Match'));
    const user = await users.update(ctx.state.scope, ctx.params.userId!, change, check);
    ctx.set('ETag', etagOf(user.version));
    ctx.body = await view(ctx, user);
  });

  route(USER_ENDPOINTS.remove, async (ctx) => {
    const { scope } = ctx.state;
    // The service takes its avatar's media along (users.service.ts remove).
    await users.remove(scope, ctx.params.userId!, ifMatch(ctx.get('If-Match')));
    // 202 without a body, and so without a body type.
    ctx.body = null;
    ctx.status = 202;
    ctx.remove('Content-Type');
  });
}
