/** Discovery: `GET /api` lists the versions, `GET /api/openapi.json` describes them. Public. */
import type Router from '@koa/router';
import { mediaTypeOf, REGISTRY } from '../../contract/versions.js';
import type { AppState } from '../http/state.js';

export function registerApiRoutes(router: Router<AppState>, vendor: string): void {
  const versions = REGISTRY.map((e) => ({
    endpoint: e.endpoint,
    method: e.method,
    header: e.header === 'accept' ? 'Accept' : 'Content-Type',
    mediaType: mediaTypeOf(e, vendor),
    version: e.version,
    stage: e.stage,
    // What a client must put in the body for this type (the platform's user-invite.v2).
    ...(e.requires ? { requires: e.requires } : {}),
  }));
  router.get('/api', (ctx) => {
    ctx.body = { vendor, versions };
  });
  router.get('/api/openapi.json', async (ctx) => {
    // Loaded and made on the first request, not at start: most servers are never asked.
    const { openApiJson } = await import('./openapi.js');
    // Relative: the document is public and cacheable, so nothing from the Host goes in it.
    ctx.type = 'application/json';
    ctx.body = openApiJson(vendor, '/api');
  });
}
