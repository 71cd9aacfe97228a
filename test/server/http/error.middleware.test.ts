import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { request } from 'undici';
import { expect, test } from 'vitest';
import { AppError } from '../../../src/server/errors.js';
import { errorMiddleware } from '../../../src/server/http/error.middleware.js';

test('headers a handler set before failing do not reach the error answer', async () => {
  const app = new Koa();
  app.use(errorMiddleware(() => {}));
  app.use((ctx) => {
    // As /cdn does before opening the file: caching and identity of the file.
    ctx.set('Cache-Control', 'public, max-age=86400, immutable');
    ctx.set('ETag', '"abc"');
    ctx.set('Content-Disposition', 'attachment');
    throw new AppError('internal', 'the file vanished');
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  try {
    const res = await request(`http://127.0.0.1:${(server.address() as AddressInfo).port}/x`);
    expect(res.statusCode).toBe(500);
    expect(res.headers['cache-control']).toBeUndefined();
    expect(res.headers.etag).toBeUndefined();
    expect(res.headers['content-disposition']).toBeUndefined();
    expect(((await res.body.json()) as { identifier: number }).identifier).toBe(50000);
  } finally {
    server.close();
  }
});
