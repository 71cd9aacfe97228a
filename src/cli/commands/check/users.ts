/** The users half of `roster check`: auth, every version of every /users endpoint. */
import { ApiError } from '../../../client/index.js';
import { LISTABLE_STATUSES } from '../../../contract/user.js';
import type { Shape, VersionEntry } from '../../../contract/versions.js';
import { mediaTypeOf, versionsOf } from '../../../contract/versions.js';
import { answered, expect404, Mismatch, negotiate, type Probe, skip, step } from './probe.js';

const NAMES = { firstName: 'Roster', lastName: 'Check' };

/** Values for fields a type requires (the platform's user-invite.v2: role and locale). */
const REQUIRED = { role: 'reader', config: { locale: 'en_US' } };

function throwawayUser({ shape, requires }: VersionEntry, tag: string): unknown {
  const email = `roster-check-${tag}@example.com`;
  if (shape === 'flat') return { email, ...NAMES, sendMail: false };
  if (shape === 'v2') return { email, profile: NAMES, sendMail: false };
  const required = requires ? REQUIRED : {};
  return { email: { value: email }, profile: NAMES, sendMail: false, ...required };
}

const change = (shape: Shape) =>
  shape === 'flat' ? { position: 'roster check' } : { profile: { position: 'roster check' } };

/** Reads (and with `write`, creates and changes) users; created ids go to `created`. */
export async function checkUsers(p: Probe, write: boolean, created: string[]) {
  const label = (method: string, path: string, type: string) => `${method} ${path} (${type})`;
  let userId: string | undefined;
  await step(p, 'authenticate: GET /users?limit=1', async () => {
    const page = await p.client.listUsers({ limit: 1, status: [...LISTABLE_STATUSES] });
    userId = page.data[0]?.id;
    return `token accepted; ${page.total} live users on the branch (${LISTABLE_STATUSES.join(', ')})`;
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
        const json = throwawayUser(
          contentType,
          `${tag}-${contentType.entity}-${contentType.version}`,
        );
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

/** Removes the throwaway users and checks they are gone. */
export async function removeUsers(p: Probe, created: string[]) {
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
