/**
 * One declared endpoint (contract/endpoints/) on a router: its path under /api, the scope it
 * needs, its negotiation, then its handler. The first route of a path on a router also answers
 * its OPTIONS: 204 with an Allow of the methods routed there (so a server that leaves an
 * endpoint out, as --like-platform does the event log, does not offer it).
 */
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { allowOf, type Endpoint, type EndpointDescriptor } from '../../contract/endpoints/index.js';
import { registryOf, type ServerKind } from '../../contract/versions.js';
import { requireScope } from './auth.middleware.js';
import { negotiate } from './negotiation.js';
import type { AppState } from './state.js';

/** `/users/{userId}` → `/api/users/:userId`, the router's spelling. */
export const routePath = (path: string) => `/api${path.replace(/\{(\w+)\}/g, ':$1')}`;

/** Per router, the methods routed for each declared path. */
const routed = new WeakMap<Router<AppState>, Map<string, Set<EndpointDescriptor['method']>>>();

export interface RouteOptions {
  vendor: string;
  /** Which versions are offered (serve --like-platform: the platform's only). */
  kind?: ServerKind;
}

export function routeEndpoint(
  router: Router<AppState>,
  d: EndpointDescriptor,
  { vendor, kind }: RouteOptions,
  handler: Middleware<AppState>,
): void {
  const paths = routed.get(router) ?? new Map<string, Set<EndpointDescriptor['method']>>();
  routed.set(router, paths);
  const methods = paths.get(d.path) ?? new Set<EndpointDescriptor['method']>();
  if (!paths.has(d.path)) {
    paths.set(d.path, methods);
    router.options(routePath(d.path), (ctx) => {
      ctx.set(
        'Allow',
        allowOf(
          d.path,
          [...methods].map((method) => ({ method, path: d.path })),
        ),
      );
      ctx.status = 204;
    });
  }
  methods.add(d.method);
  const [scope, answer] = d.scope;
  const negotiation = negotiate(d.path as Endpoint, d.method, {
    vendor,
    kind,
    forms: d.forms,
    versions: registryOf([d]),
  });
  router.register(
    routePath(d.path),
    [d.method],
    [requireScope(scope, answer), negotiation, handler],
  );
}
