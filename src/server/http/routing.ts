/**
 * Which routers see a request. @koa/router's middleware reads the Host and matches the path
 * against every route of its router before it can pass a request on, so each router a request
 * meets costs it that much; a path's prefix already says which routers can answer it (what that
 * saves a GET by id: bench/README.md, "Figures from src/ comments").
 */
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { AppState } from './state.js';

export interface RouteTable {
  /** Routers for paths starting with each prefix, tried in order; the first prefix wins. */
  prefixes: [prefix: string, routers: Router<AppState>[]][];
  /** Routers for every other path. */
  rest: Router<AppState>[];
}

export function routeByPrefix({ prefixes, rest }: RouteTable): Middleware<AppState> {
  const table = prefixes.map(([prefix, routers]) => [prefix, chain(routers)] as const);
  const other = chain(rest);
  return async (ctx, next) => {
    const path = ctx.path;
    const routes = table.find(([prefix]) => path.startsWith(prefix))?.[1] ?? other;
    await routes(ctx, next);
    // The router answers OPTIONS on routes without their own handler with 200 and an empty
    // text/plain body; like the explicit OPTIONS routes (the spec's) it says 204 with no body
    // type, so an OpenAPI client expects no body.
    if (ctx.method === 'OPTIONS' && ctx.status === 200 && ctx.body === '') {
      ctx.body = null;
      ctx.status = 204;
    }
  };
}

/** Each router's routes, then its 405/501/OPTIONS answers, router after router. */
function chain(routers: Router<AppState>[]): Middleware<AppState> {
  const layers = routers.flatMap((r) => [r.routes(), r.allowedMethods()] as Middleware<AppState>[]);
  return layers.reduceRight<Middleware<AppState>>(
    (rest, layer) => (ctx, next) => layer(ctx, () => rest(ctx, next)),
    (_ctx, next) => next(),
  );
}
