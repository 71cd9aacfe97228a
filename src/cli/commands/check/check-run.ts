/**
 * What `roster check` does, in order: reach the service (GET /api), authenticate, then every
 * registered version of every endpoint, judged by the Content-Type that comes back. With
 * `write`, throwaway users (one per request version) and, when the service has media
 * endpoints, a throwaway medium are created, read, changed and removed again.
 */
import { type ApiClient, ApiError } from '../../../client/index.js';
import { checkMedia } from './media.js';
import { Mismatch, NotOffered, type Probe, ScopesMissing, type Step, step } from './probe.js';
import { checkUsers, removeUsers } from './users.js';

/** Runs every probe; whatever was created is removed again, even after a failure. */
export async function probeService(
  client: ApiClient,
  write: boolean,
  expectScopes: readonly string[] = [],
): Promise<Step[]> {
  // --write asks for the writes a token may run: one that may not is "not permitted", as
  // README and docs/platform.md say, so a least-privilege CI token passes. A job that needs the
  // writes says so with --expect-scopes users:write,media:write.
  const p: Probe = {
    client,
    get vendor() {
      return client.http.vendor;
    },
    steps: [],
    expected: new Set(expectScopes),
  };
  const vendor = client.http.vendor;
  await step(p, 'reach the service: GET /api', async () => {
    let res: Awaited<ReturnType<typeof client.http.json<{ vendor?: unknown }>>>;
    try {
      res = await client.http.json<{ vendor?: unknown }>({ method: 'GET', url: '' });
    } catch (err) {
      // The real platform has no catalog: reachability and versions are checked one by one.
      if (err instanceof ApiError && [404, 405, 406].includes(err.status)) {
        throw new NotOffered(`${err.status}: the service has no catalog (GET /api)`);
      }
      throw err;
    }
    const served = res.data?.vendor;
    if (typeof served === 'string' && served !== vendor) {
      throw new Mismatch(
        `the service uses vendor '${served}', this client '${vendor}': run \`roster login --vendor ${served}\``,
      );
    }
    return `${res.status}, vendor ${typeof served === 'string' ? served : '(not listed)'}`;
  });
  if (expectScopes.length > 0) await checkScopes(p, expectScopes);
  const created: string[] = [];
  let medium: string | undefined;
  try {
    await checkUsers(p, write, created);
    medium = await checkMedia(p, write);
    if (write) await removeUsers(p, created);
  } finally {
    const leftovers = [...created.map((id) => () => client.deleteUser(id))];
    if (medium) leftovers.push(() => client.deleteMedium(medium!));
    await Promise.allSettled(leftovers.map((f) => f()));
  }
  return p.steps;
}

/**
 * The scopes --expect-scopes names, against the ones the service lists for the token (Roster
 * does in GET /api/branch; the platform does not: then the steps that need them tell).
 */
async function checkScopes(p: Probe, expected: readonly string[]) {
  await step(p, `token scopes: GET /branch (expected ${expected.join(', ')})`, async () => {
    const { scopes } = await p.client.getBranch();
    if (!scopes) return 'the service does not list them; the steps below need them';
    const missing = expected.filter((s) => !scopes.includes(s));
    if (missing.length > 0) {
      throw new ScopesMissing(
        `the token lacks ${missing.join(', ')} (it has ${scopes.join(', ') || 'none'})`,
      );
    }
    return `the token has ${scopes.join(', ')}`;
  });
}
