/**
 * Which routers see a request, and how a router dispatches it. A path's prefix already says
 * which routers can answer it (what that saves a GET by id: bench/README.md, "Figures from src/
 * comments"). Within a router, `dispatch` does what @koa/router's `routes()` does — the same
 * layers matched in the same order, the same params and context fields — but composes the
 * middleware of each set of matched layers once, where @koa/router builds and composes that
 * chain anew on every request (bench/README.md, "Where a GET by id's time goes").
 */
import type { Layer, default as Router } from '@koa/router';
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
  return (ctx, next) => {
    const path = ctx.path;
    const routes = table.find(([prefix]) => path.startsWith(prefix))?.[1] ?? other;
    if (ctx.method !== 'OPTIONS') return routes(ctx, next);
    // The router answers OPTIONS on routes without their own handler with 200 and an empty
    // text/plain body; like the explicit OPTIONS routes (the spec's) it says 204 with no body
    // type, so an OpenAPI client expects no body.
    return routes(ctx, next).then(() => {
      if (ctx.status === 200 && ctx.body === '') {
        ctx.body = null;
        ctx.status = 204;
      }
    });
  };
}

/** Each router's routes, then its 405/501/OPTIONS answers, router after router. */
function chain(routers: Router<AppState>[]): Middleware<AppState> {
  const layers = routers.flatMap(
    (r) => [dispatch(r), r.allowedMethods()] as Middleware<AppState>[],
  );
  return layers.reduceRight<Middleware<AppState>>(
    (rest, layer) => (ctx, next) => layer(ctx, () => rest(ctx, next)),
    (_ctx, next) => next(),
  );
}

type RouteLayer = Layer<AppState>;

/** The fields @koa/router sets on a context (its allowedMethods and metrics read them). */
interface Routed {
  matched?: RouteLayer[];
  router: Router<AppState>;
  routeMatched: boolean;
  captures: string[];
  params: Record<string, string>;
  request: { params: Record<string, string> };
  routerPath: string | RegExp;
  routerName: string | undefined;
  _matchedRoute: string | RegExp;
  _matchedRouteName?: string;
}

/**
 * A router's `routes()`, its chains composed once per set of matched layers (a handful per
 * route). Options this does not reproduce (a host, exclusive routes) keep @koa/router's own.
 */
export function dispatch(router: Router<AppState>): Middleware<AppState> {
  if (router.host !== undefined || router.exclusive) return router.routes() as Middleware<AppState>;
  const chains = new Map<string, Middleware<AppState>>();
  const chainOf = (key: string, layers: RouteLayer[]) => {
    let composed = chains.get(key);
    if (!composed) {
      composed = compose(
        layers.flatMap((l) => [captured(l), ...(l.stack as Middleware<AppState>[])]),
      );
      chains.set(key, composed);
    }
    return composed;
  };
  return (ctx, next) => {
    const routed = ctx as unknown as Routed;
    const path = ctx.path;
    const method = ctx.method.toUpperCase();
    // The stack is read per request: routes registered after this was made count too.
    const stack = router.stack;
    const matched: RouteLayer[] = [];
    const chosen: RouteLayer[] = [];
    let key = '';
    let route: RouteLayer | undefined;
    for (let i = 0; i < stack.length; i++) {
      const layer = stack[i]!;
      if (!layer.match(path)) continue;
      matched.push(layer);
      if (layer.methods.length === 0 || layer.methods.includes(method)) {
        chosen.push(layer);
        key += `${i},`;
        if (layer.methods.length > 0) route = layer;
      }
    }
    if (routed.matched) routed.matched.push(...matched);
    else routed.matched = matched;
    routed.router = router;
    routed.routeMatched = route !== undefined;
    if (!route) return next();
    routed._matchedRoute = route.path;
    if (route.name) routed._matchedRouteName = route.name;
    return chainOf(key, chosen)(ctx, next);
  };
}

/** Sets a matched layer's params (and what else @koa/router sets) before its middleware runs. */
function captured(layer: RouteLayer): Middleware<AppState> {
  return (ctx, next) => {
    const routed = ctx as unknown as Routed;
    routed.captures = layer.captures(ctx.path);
    routed.request.params = layer.params(ctx.path, routed.captures, routed.params);
    routed.params = routed.request.params;
    // A middleware layer (`use`, no methods) keeps the route's pattern, set before the chain:
    // what it refuses (401, 429) is counted under the route, not under its `(?:\/|$)`.
    if (layer.methods.length > 0) {
      routed.routerPath = layer.path;
      routed.routerName = layer.name || undefined;
      routed._matchedRoute = layer.path;
      if (layer.name) routed._matchedRouteName = layer.name;
    }
    return next();
  };
}

/** koa-compose's semantics for a fixed list (next() twice is an error). */
function compose(middleware: Middleware<AppState>[]): Middleware<AppState> {
  return (ctx, next) => {
    let last = -1;
    const run = (i: number): Promise<unknown> => {
      if (i <= last) return Promise.reject(new Error('next() called multiple times'));
      last = i;
      const fn = i < middleware.length ? middleware[i] : next;
      if (!fn) return Promise.resolve();
      try {
        return Promise.resolve(fn(ctx, () => run(i + 1)));
      } catch (err) {
        return Promise.reject(err);
      }
    };
    return run(0);
  };
}
