/**
 * A real full disk: `roster serve` on a small tmpfs. Writes get 507; deleting media and revoking
 * a token still work at 100 %; once room is made the service carries on, the database is intact
 * and every acknowledged write is still there.
 */

import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { execaSync } from 'execa';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openSqliteStore as openStore } from '../../src/store/sqlite/store.js';
import { TEST_AUDIT } from '../helpers/audit.js';
import { BIN, spawnServe } from '../helpers/e2e.js';
import { engineAvailable } from '../helpers/engine.js';
import { requester, V3 } from '../helpers/server.js';
import { uploadBody } from '../server/media/media-helpers.js';

const root = process.getuid?.() === 0;
const run = engineAvailable(
  'disk-full fault',
  root,
  'run as root (the test mounts a small tmpfs), as CI does',
);

describe.runIf(run)('a full disk under roster serve', () => {
  const base = mkdtempSync(join(tmpdir(), 'roster-full-'));
  const mount = join(base, 'fs');
  const data = join(mount, 'data');
  const config = join(base, 'config');
  beforeAll(() => {
    mkdirSync(mount);
    mkdirSync(config);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=40m', 'tmpfs', mount]);
  });
  afterAll(() => {
    execFileSync('umount', ['-l', mount]);
    rmSync(base, { recursive: true, force: true });
  });

  const cli = (args: string[]) =>
    execaSync(process.execPath, [BIN, ...args, '--data', data], {
      env: { ROSTER_CONFIG_DIR: config, NO_COLOR: '1' },
      reject: false,
      input: '',
    });

  test('507 for writes, deletes and revocation still work, nothing acknowledged is lost', async () => {
    const served = await spawnServe(data, config);
    const token = JSON.parse(readFileSync(join(config, 'config.json'), 'utf8')).profiles.local
      .token;
    const req = requester(served.url, token);
    const spare = JSON.parse(String(cli(['tokens', 'create', '--json', '--name', 'spare']).stdout));
    const upload = (n: number) => {
      const { body, contentType } = uploadBody(randomBytes(1024 * 1024), `f${n}.bin`);
      return req('POST', '/api/media', { headers: { 'content-type': contentType }, body });
    };
    const users: string[] = [];
    const addUser = async (i: number) => {
      const r = await req('POST', '/api/users', {
        headers: { 'content-type': V3, accept: V3 },
        body: JSON.stringify({ email: `u${i}@example.com`, profile: { cf_pad: 'p'.repeat(900) } }),
      });
      if (r.status === 201) users.push(r.json.id);
      return r;
    };
    try {
      const media: string[] = [];
      let refused: Awaited<ReturnType<typeof upload>> | undefined;
      for (let i = 0; i < 60 && !refused; i++) {
        const r = await upload(i);
        if (r.status === 200) media.push(r.json.id);
        else refused = r;
      }
      expect(refused?.status).toBe(507);
      expect(refused?.json).toMatchObject({ identifier: 50700 });
      expect(media.length).toBeGreaterThan(5);

      let userRefused: Awaited<ReturnType<typeof addUser>> | undefined;
      for (let i = 0; i < 5000 && !userRefused; i++) {
        const r = await addUser(i);
        if (r.status !== 201) userRefused = r;
      }
      expect(userRefused?.status).toBe(507);
      expect(userRefused?.json.type).toBe('InsufficientStorageException');

      // The way out works at 100 %: revoke a token, delete media.
      const revoked = cli(['tokens', 'revoke', spare.id]);
      expect(String(revoked.stderr)).toContain(`revoked token ${spare.id}`);
      expect(revoked.exitCode).toBe(0);
      expect((await req('DELETE', `/api/media/${media.shift()}`)).status).toBe(204);
      for (const id of media.splice(0, 4)) {
        expect((await req('DELETE', `/api/media/${id}`)).status).toBe(204);
      }

      // With room again, the service carries on.
      expect((await upload(999)).status).toBe(200);
      expect((await addUser(99_999)).status).toBe(201);
      expect((await req('GET', '/api/users/x', { token: spare.token })).status).toBe(401);
      for (const id of media) {
        expect((await req('GET', `/api/media/${id}`)).status, id).toBe(200);
      }
    } finally {
      served.child.kill('SIGTERM');
      await served.child;
    }
    const db = new Database(join(data, 'roster.db'), { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      const live = db.prepare("SELECT id FROM users WHERE status <> 'deleted'").pluck().all();
      expect(new Set(live)).toEqual(new Set(users));
    } finally {
      db.close();
    }
  });

  test('the reserve is what lets a delete through when SQLite has no room left at all', async () => {
    rmSync(data, { recursive: true, force: true });
    const dir = join(mount, 'reserve-case');
    const store = openStore(dir);
    try {
      expect(store.reserve.ensure()).toBe(true);
      await store.bootstrap();
      const tenant = await store.tenants.byHost('*');
      const branch = tenant && (await store.branches.byName(tenant.id, 'main'));
      if (!branch) throw new Error('bootstrap made no main branch');
      const tokens: Awaited<ReturnType<typeof store.tokens.create>>[] = [];
      for (let i = 0; i < 3; i++) {
        tokens.push(
          await store.tokens.create(branch.id, `t${i}`, ['users:read'], ['api'], TEST_AUDIT),
        );
      }
      // Fill every byte the file system has left.
      const fd = openSync(join(dir, 'filler'), 'w');
      const chunk = Buffer.alloc(256 * 1024);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (err) {
        expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
      }
      for (let size = chunk.length / 2; size >= 512; size /= 2) {
        try {
          for (;;) writeSync(fd, Buffer.alloc(size));
        } catch {}
      }
      closeSync(fd);
      await expect(store.tokens.revoke(tokens[0]!.token.id, TEST_AUDIT)).rejects.toThrow(/full/i);
      expect(
        await store.reserve.whenFull(() => store.tokens.revoke(tokens[0]!.token.id, TEST_AUDIT)),
      ).toBe(true);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
