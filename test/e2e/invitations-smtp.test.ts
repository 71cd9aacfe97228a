import { afterEach, describe, expect, test } from 'vitest';
import { sqliteHandle } from '../../src/store/sqlite/handle.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import { profileToken, spawnServe } from '../helpers/e2e.js';
import { scratch } from '../helpers/scratch.js';
import { requester, V3 } from '../helpers/server.js';
import { startSmtp } from '../helpers/smtp.js';

const scope = scratch();
afterEach(scope.cleanup);
const { temp } = scope;
const tokenOf = (configDir: string) => profileToken(configDir)!;

/** Fires `count` invitations at once and kills the server with -9 once `killAfter` are answered. */
async function burstThenKill(data: string, config: string, args: string[], tag: string) {
  const first = await spawnServe(data, config, args);
  const req = requester(first.url, tokenOf(config));
  let answered = 0;
  const acknowledged: string[] = [];
  await Promise.allSettled(
    Array.from({ length: 40 }, (_, i) =>
      req('POST', '/api/users', {
        headers: { 'content-type': V3, accept: V3 },
        body: JSON.stringify({ email: `${tag}${i}@example.com` }),
      }).then((r) => {
        if (r.status === 201) acknowledged.push(r.json.id);
        if (++answered === 10) first.child.kill('SIGKILL');
      }),
    ),
  );
  await first.child;
  return acknowledged;
}

/** Every user the database holds with an email (what was committed, acknowledged or not). */
async function committedUsers(data: string): Promise<string[]> {
  const store = openSqliteStore(data);
  try {
    return sqliteHandle(store)
      .prepare('SELECT id FROM users WHERE email IS NOT NULL')
      .pluck()
      .all() as string[];
  } finally {
    await store.close();
  }
}

describe('invitations survive kill -9', () => {
  test('SMTP: every committed user gets its invitation from the restarted server', async () => {
    const data = temp('roster-outbox-data-');
    const config = temp('roster-outbox-config-');
    const relay = await startSmtp();
    scope.defer(() => relay.close());
    const acknowledged = await burstThenKill(data, config, ['--smtp-url', relay.url], 'smtp');

    const users = await committedUsers(data);
    expect(users).toEqual(expect.arrayContaining(acknowledged));
    const second = await spawnServe(data, config, ['--smtp-url', relay.url]);
    scope.defer(async () => {
      second.child.kill('SIGTERM');
      await second.child;
    });
    const expected = new Set(users.map((id) => `<invitation.${id}@roster.localhost>`));
    // At least once: duplicates may arrive (same Message-ID); wait until each one has.
    const seen = new Set<string>();
    for (let n = 1; [...expected].some((m) => !seen.has(m)); n++) {
      const mails = await relay.waitFor(n);
      seen.add(mails[n - 1]!.messageId!);
    }
    expect([...seen].filter((m) => !expected.has(m))).toEqual([]);
  });
});
