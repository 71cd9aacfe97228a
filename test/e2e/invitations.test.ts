/** `roster serve` and its outbox as processes: kill -9 in a burst of invitations loses none. */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { profileToken, spawnServe } from '../helpers/e2e.js';
import { eventually } from '../helpers/eventually.js';
import { scratch } from '../helpers/scratch.js';
import { requester, USERS_V2, V3 } from '../helpers/server.js';

const scope = scratch();
afterEach(scope.cleanup);
const { temp } = scope;
const tokenOf = (configDir: string) => profileToken(configDir)!;

test('every user committed before a kill -9 gets exactly one invitation after the restart', async () => {
  const data = temp('roster-mail-data-');
  const config = temp('roster-mail-config-');
  const first = await spawnServe(data, config);
  const req = requester(first.url, tokenOf(config));
  let answered = 0;
  const posts = Array.from({ length: 60 }, (_, i) =>
    req('POST', '/api/users', {
      headers: { 'content-type': V3, accept: V3 },
      body: JSON.stringify({ email: `burst${i}@example.com` }),
    })
      .then(() => answered++)
      .catch(() => undefined),
  );
  // Kill as soon as a few have been answered: the rest are in flight, some committed.
  await eventually(() => answered >= 5, 15_000);
  first.child.kill('SIGKILL');
  await first.child;
  await Promise.all(posts);

  const outbox = join(data, 'outbox');
  mkdirSync(outbox, { recursive: true });
  writeFileSync(join(outbox, '.left-by-a-crash.eml.tmp'), 'partial');

  const second = await spawnServe(data, config);
  try {
    const again = requester(second.url, tokenOf(config));
    const users = (
      await again('GET', '/api/users?status=pending&limit=1000', { headers: { accept: USERS_V2 } })
    ).json.data as { id: string }[];
    expect(users.length).toBeGreaterThan(0);
    const mails = () => (existsSync(outbox) ? readdirSync(outbox) : []);
    await eventually(
      () => mails().filter((f) => f.endsWith('.eml')).length >= users.length,
      10_000,
    );
    const files = mails();
    expect(files.filter((f) => f.endsWith('.tmp'))).toEqual([]);
    for (const u of users) {
      const theirs = files.filter((f) => f.endsWith(`-${u.id}.eml`));
      expect(theirs, u.id).toHaveLength(1);
      expect(readFileSync(join(outbox, theirs[0]!), 'utf8')).toContain(
        `Message-ID: <invitation.${u.id}@roster.localhost>`,
      );
    }
    expect(files.filter((f) => f.endsWith('.eml'))).toHaveLength(users.length);
  } finally {
    second.child.kill('SIGTERM');
    await second.child;
  }
});
