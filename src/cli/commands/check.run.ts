/**
 * What `roster check` does, in order: reach the service (GET /api), authenticate, then every
 * registered version of every endpoint, judged by the Content-Type that comes back. With
 * `write`, throwaway users (one per request version) and, when the service has media
 * endpoints, a throwaway medium are created, read, changed and removed again.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiClient } from '../../client/index.js';
import { ApiError } from '../../client/index.js';
import type { Shape } from '../../contract/versions.js';
import { mediaTypeOf, versionsOf } from '../../contract/versions.js';
import { answered, Mismatch, negotiate, type Probe, type Step, skip, step } from './check.probe.js';

const NAMES = { firstName: 'Roster', lastName: 'Check' };

function throwawayUser(shape: Shape, tag: string): unknown {
  const email = `roster-check-${tag}@example.com`;
  if (shape === 'flat') return { email, ...NAMES, sendMail: false };
  if (shape === 'v2') return { email, profile: NAMES, sendMail: false };
  return { email: { value: email }, profile: NAMES, sendMail: false };
}

const change = (shape: Shape) =>
  shape === 'flat' ? { position: 'roster check' } : { profile: { position: 'roster check' } };

async function users(p: Probe, write: boolean, created: string[]) {
  const label = (method: string, path: string, type: string) => `${method} ${path} (${type})`;
  let userId: string | undefined;
  await step(p, 'authenticate: GET /users?limit=1', async () => {
    const page = await p.client.listUsers({ limit: 1 });
    userId = page.data[0]?.id;
    return `token accepted; ${page.total} users`;
  });
  for (const accept of versionsOf('/users', 'GET', 'accept')) {
    await step(p, label('GET', '/users', mediaTypeOf(accept, p.vendor)), async () => {
      const res = await negotiate(p, {
        method: 'GET',
        endpoint: '/users',
        query: { limit: 1 },
        accept,
        status: 200,
      });
      return answered(res, accept.stage);
    });
  }
  await step(p, 'GET /users (an unknown version) answers 406', async () => {
    const accept = `application/vnd.${p.vendor}.accessors.users.v0+json`;
    try {
      await p.client.http.json({ method: 'GET', endpoint: '/users', headers: { accept } });
    } catch (err) {
      if (err instanceof ApiError && err.status === 406) return '406 NotAcceptableException';
      throw err;
    }
    throw new Mismatch('answered 2xx, expected 406');
  });

  const accepts = versionsOf('/users', 'POST', 'accept');
  const tag = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  if (write) {
    for (const [i, contentType] of versionsOf('/users', 'POST', 'content-type').entries()) {
      const accept = accepts[i] ?? accepts.at(-1)!;
      await step(p, label('POST', '/users', mediaTypeOf(contentType, p.vendor)), async () => {
        const json = throwawayUser(contentType.shape, `${tag}-${contentType.version}`);
        const res = await negotiate<{ id: string }>(p, {
          method: 'POST',
          endpoint: '/users',
          accept,
          contentType,
          json,
          status: 201,
        });
        created.push(res.data.id);
        return `${answered(res, contentType.stage)}; user ${res.data.id}`;
      });
    }
    userId = created[0] ?? userId;
  }
  for (const accept of versionsOf('/users/{userId}', 'GET', 'accept')) {
    const name = label('GET', '/users/{id}', mediaTypeOf(accept, p.vendor));
    if (!userId) {
      skip(p, name, 'no user to read on this branch (run with --write)');
      continue;
    }
    const params = { userId };
    await step(p, name, async () =>
      answered(
        await negotiate(p, {
          method: 'GET',
          endpoint: '/users/{userId}',
          params,
          accept,
          status: 200,
        }),
        accept.stage,
      ),
    );
  }
  if (!write) return;
  const putAccepts = versionsOf('/users/{userId}', 'PUT', 'accept');
  for (const [i, contentType] of versionsOf('/users/{userId}', 'PUT', 'content-type').entries()) {
    const name = label('PUT', '/users/{id}', mediaTypeOf(contentType, p.vendor));
    const target = created[0];
    if (!target) {
      skip(p, name, 'no throwaway user was created');
      continue;
    }
    const accept = putAccepts[i] ?? putAccepts.at(-1)!;
    await step(p, name, async () => {
      const json = change(contentType.shape);
      const params = { userId: target };
      return answered(
        await negotiate(p, {
          method: 'PUT',
          endpoint: '/users/{userId}',
          params,
          accept,
          contentType,
          json,
          status: 200,
        }),
        contentType.stage,
      );
    });
  }
}

async function removeUsers(p: Probe, created: string[]) {
  const [accept] = versionsOf('/users/{userId}', 'DELETE', 'accept');
  for (const userId of [...created]) {
    const ok = await step(p, `DELETE /users/${userId}`, async () => {
      await negotiate(p, {
        method: 'DELETE',
        endpoint: '/users/{userId}',
        params: { userId },
        accept: accept!,
        status: 202,
      });
      created.splice(created.indexOf(userId), 1);
      return '202, removed';
    });
    if (ok)
      await step(p, `GET /users/${userId} after removal answers 404`, () =>
        expect404(() => p.client.getUser(userId)),
      );
  }
}

async function expect404(fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return '404 NotFoundException';
    throw err;
  }
  throw new Mismatch('still answers 2xx');
}

async function media(p: Probe, write: boolean) {
  const names = ['GET /media', 'POST /media', 'GET /media/{id}', 'DELETE /media/{id}'];
  let mediumId: string | undefined;
  const skipAll = (why: string) => {
    for (const n of names) skip(p, n, why);
    return undefined;
  };
  if (p.stopped) return skipAll(p.stopped);
  try {
    mediumId = (await p.client.listMedia({ limit: 1 })).data[0]?.id;
  } catch (err) {
    // The media routes are optional on a service: without them the media steps are skipped.
    if (err instanceof ApiError && [404, 405, 501].includes(err.status)) {
      return skipAll(`the service has no media endpoints (${err.status})`);
    }
  }
  const [accept] = versionsOf('/media', 'GET', 'accept');
  await step(p, `GET /media (${mediaTypeOf(accept!, p.vendor)})`, async () =>
    answered(
      await negotiate(p, {
        method: 'GET',
        endpoint: '/media',
        query: { limit: 1 },
        accept: accept!,
        status: 200,
      }),
      accept!.stage,
    ),
  );
  let uploaded: string | undefined;
  if (write) {
    await step(p, 'POST /media (a throwaway file)', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'roster-check-'));
      try {
        const filePath = join(dir, 'roster-check.txt');
        await writeFile(filePath, 'roster check: a throwaway medium, removed right away\n');
        uploaded = (await p.client.uploadMedium({ filePath })).id;
        return `medium ${uploaded}`;
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  }
  const id = uploaded ?? mediumId;
  const [one] = versionsOf('/media/{mediumID}', 'GET', 'accept');
  if (!id) skip(p, 'GET /media/{id}', 'no medium to read (run with --write)');
  else {
    await step(p, `GET /media/{id} (${mediaTypeOf(one!, p.vendor)})`, async () =>
      answered(
        await negotiate(p, {
          method: 'GET',
          endpoint: '/media/{mediumID}',
          params: { mediumID: id },
          accept: one!,
          status: 200,
        }),
        one!.stage,
      ),
    );
  }
  if (uploaded) {
    const mediumID = uploaded;
    const ok = await step(p, `DELETE /media/${mediumID}`, async () => {
      await p.client.deleteMedium(mediumID);
      uploaded = undefined;
      return 'removed';
    });
    if (ok)
      await step(p, `GET /media/${mediumID} after removal answers 404`, () =>
        expect404(() => p.client.getMedium(mediumID)),
      );
  }
  return uploaded;
}

/** Runs every probe; whatever was created is removed again, even after a failure. */
export async function probeService(
  client: ApiClient,
  vendor: string,
  write: boolean,
): Promise<Step[]> {
  const p: Probe = { client, vendor, steps: [] };
  await step(p, 'reach the service: GET /api', async () => {
    const res = await client.http.json<{ vendor?: unknown }>({ method: 'GET', url: '' });
    const served = res.data?.vendor;
    if (typeof served === 'string' && served !== vendor) {
      throw new Mismatch(
        `the service uses vendor '${served}', this client '${vendor}': run \`roster login --vendor ${served}\``,
      );
    }
    return `${res.status}, vendor ${typeof served === 'string' ? served : '(not listed)'}`;
  });
  const created: string[] = [];
  let medium: string | undefined;
  try {
    await users(p, write, created);
    medium = await media(p, write);
    if (write) await removeUsers(p, created);
  } finally {
    const leftovers = [...created.map((id) => () => client.deleteUser(id))];
    if (medium) leftovers.push(() => client.deleteMedium(medium!));
    await Promise.allSettled(leftovers.map((f) => f()));
  }
  return p.steps;
}
