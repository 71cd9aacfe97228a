/**
 * GET /api/events over real HTTP on the backend the run chooses: each write's event (REST,
 * SCIM, serve's bootstrap), redaction, no event for a no-op, the filters, the cursor, the long
 * poll, and bad input.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { TEST_AUDIT } from '../../helpers/audit.js';
import { scimClient, scimUser } from '../../helpers/scim.js';
import { jsonBody, startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const events = async (query = '', token?: string) => {
  const res = await server.req('GET', `/api/events${query}`, token ? { token } : {});
  expect(res.status, res.text).toBe(200);
  return res.json as { data: any[]; next: string };
};
/** The events written after `cursor` (a `next`), for one test's own writes. */
const since = async (cursor: string, query = '') => (await events(`?after=${cursor}${query}`)).data;
/** Where the list `query` stands now: a later `since(mark, query)` gives what came after. */
const mark = async (query = '') => (await events(`?limit=1000${query}`)).next;
const create = (body: Record<string, unknown>, headers: Record<string, string> = {}) => {
  const req = jsonBody(body);
  return server.req('POST', '/api/users', { ...req, headers: { ...req.headers, ...headers } });
};

describe('what each write records', () => {
  test("serve's bootstrap: token.created by the system, its value never", async () => {
    const first = (await events('?type=token.created')).data[0];
    expect(first).toMatchObject({
      type: 'token.created',
      actor: { type: 'system', name: 'serve' },
      channel: 'system',
      target: { type: 'token' },
      changes: {
        name: { from: null, to: 'admin' },
        secret: { from: '[redacted]', to: '[redacted]' },
      },
    });
    expect(JSON.stringify(first)).not.toContain(server.adminToken.slice(-20));
  });

  test('REST: created, updated (from → to), no event for a no-op, deactivated, deleted', async () => {
    const at = await mark();
    const res = await create(
      {
        externalId: 'ev-1',
        email: 'ann@example.com',
        profile: { firstName: 'Ann', department: 'Ops' },
      },
      { 'X-Request-Id': 'req-ev-1', 'Roster-Run-Id': 'run-42' },
    );
    expect(res.status, res.text).toBe(201);
    const id = res.json.id;
    const put = (body: unknown) => server.req('PUT', `/api/users/${id}`, jsonBody(body));
    expect((await put({ profile: { department: 'Sales' } })).status).toBe(200);
    expect((await put({ profile: { department: 'Sales' } })).status).toBe(200); // no change
    expect((await put({ secret: 'a long enough secret 1' })).status).toBe(200);
    expect((await server.req('DELETE', `/api/users/${id}`)).status).toBe(202);
    const log = await since(at);
    expect(log.map((e) => e.type)).toEqual([
      'user.created',
      'user.updated',
      'user.activated',
      'user.deleted',
    ]);
    const [created, updated, activated, deleted] = log;
    expect(created).toMatchObject({
      channel: 'api',
      actor: { type: 'token', name: 'admin' },
      requestId: 'req-ev-1',
      run: 'run-42',
      target: { type: 'user', id, externalId: 'ev-1', email: 'ann@example.com' },
      changes: {
        email: { from: null, to: 'ann@example.com' },
        'profile.department': { from: null, to: 'Ops' },
        status: { from: null, to: 'pending' },
      },
    });
    expect(created.actor.id).toMatch(/^[0-9a-f]{24}$/);
    expect(updated.changes).toEqual({ 'profile.department': { from: 'Ops', to: 'Sales' } });
    expect(updated).not.toHaveProperty('run');
    // The secret's change is there, its value (and hash) never.
    expect(activated.changes.secret).toEqual({ from: '[redacted]', to: '[redacted]' });
    expect(activated.changes.status).toEqual({ from: 'pending', to: 'activated' });
    expect(JSON.stringify(activated)).not.toContain('long enough');
    expect(deleted.changes.status).toEqual({ from: 'activated', to: 'deleted' });
    expect(log.map((e) => e.sequence)).toEqual(
      [...log.map((e) => e.sequence)].sort((a, b) => a - b),
    );
  });

  test('a pending user withdrawn is user.deleted; deactivated is user.deactivated', async () => {
    const filter = '&type=user.deleted,user.deactivated';
    const at = await mark(filter);
    const a = (await create({ email: 'pend@example.com' })).json.id;
    const b = (await create({ email: 'deact@example.com', secret: 'a long enough secret 2' })).json
      .id;
    await server.req('DELETE', `/api/users/${a}`);
    await server.req('PUT', `/api/users/${b}`, jsonBody({ status: 'deactivated' }));
    const log = await since(at, filter);
    expect(log.map((e) => [e.type, e.target.id])).toEqual([
      ['user.deleted', a],
      ['user.deactivated', b],
    ]);
    expect(log[0].changes.status).toEqual({ from: 'pending', to: 'deleted' });
  });

  test('SCIM: channel scim; a PATCH that changes nothing records nothing', async () => {
    const at = await mark();
    const scim = scimClient(server);
    const res = await scim('POST', '/Users', scimUser('ev'));
    expect(res.status, res.text).toBe(201);
    const patch = {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'replace', path: 'name.givenName', value: 'Givenev' }],
    };
    expect((await scim('PATCH', `/Users/${res.json.id}`, patch)).status).toBe(200);
    // The user's events (scimClient makes its SCIM token on first use: a token.created of its own).
    const log = (await since(at)).filter((e) => e.target.type === 'user');
    expect(log.map((e) => [e.type, e.channel])).toEqual([['user.created', 'scim']]);
  });

  test('media: medium.created and medium.deleted', async () => {
    const at = await mark();
    const boundary = 'b0undary';
    const body = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--${boundary}--\r\n`,
    );
    const up = await server.req('POST', '/api/media', {
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
    });
    expect(up.status, up.text).toBe(200);
    expect((await server.req('DELETE', `/api/media/${up.json.id}`)).status).toBe(204);
    const log = await since(at);
    expect(log.map((e) => [e.type, e.target])).toEqual([
      ['medium.created', { type: 'medium', id: up.json.id }],
      ['medium.deleted', { type: 'medium', id: up.json.id }],
    ]);
  });
});

describe('filters and paging', () => {
  test('target=, type= families, run=, since/until, limit and the cursor through every page', async () => {
    const filters = ['', '&type=user.*', '&type=medium.*', '&run=run-f', '&type=user.created'];
    const [at, users, media, run, created] = await Promise.all(filters.map((f) => mark(f)));
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(
        (await create({ email: `f${i}@example.com` }, { 'Roster-Run-Id': 'run-f' })).json.id,
      );
    }
    await server.req('PUT', `/api/users/${ids[0]}`, jsonBody({ profile: { lastName: 'X' } }));
    expect((await events(`?target=${ids[0]}`)).data.map((e) => e.type)).toEqual([
      'user.created',
      'user.updated',
    ]);
    expect((await since(users!, filters[1])).length).toBe(6);
    expect((await since(media!, filters[2])).length).toBe(0);
    expect((await since(run!, filters[3])).length).toBe(5);
    // Paging: two at a time, each page's next continues it; Link names the next page.
    const seen: string[] = [];
    let cursor = created;
    for (;;) {
      const res = await server.req('GET', `/api/events?type=user.created&limit=2&after=${cursor}`);
      seen.push(...res.json.data.map((e: any) => e.target.id));
      cursor = res.json.next;
      if (!res.headers.link) break;
      expect(res.headers.link).toContain('rel="next"');
    }
    expect(seen).toEqual(ids);
    const all = await since(at!);
    const middle = all[2].occurredAt;
    const later = await events(`?since=${encodeURIComponent(middle)}&limit=1000`);
    expect(later.data.every((e) => e.occurredAt >= middle)).toBe(true);
    const before = await events(`?until=${encodeURIComponent(middle)}&limit=1000`);
    expect(before.data.every((e) => e.occurredAt < middle)).toBe(true);
  });

  test("after=end starts at the log's end: an empty page whose next gives only later events", async () => {
    await create({ email: 'before-end@example.com' });
    const end = await events('?after=end&type=user.*');
    expect(end.data).toEqual([]);
    const made = await create({ email: 'after-end@example.com' });
    const later = await since(end.next, '&type=user.*');
    expect(later.map((e) => e.target.id)).toEqual([made.json.id]);
    // With wait= it is where a follower starts: the poll holds until the next event. Where the
    // service reads "the end" against the writes sent after the poll is not the test's to
    // order (a write may land first), so writes go on, one at a time, until the poll answers:
    // with the events of some of them, in order, and none from before it was sent.
    let answered: { json: { data: any[] } } | undefined;
    const polled = server.req('GET', '/api/events?after=end&wait=30').then((r) => {
      answered = r;
    });
    const written: string[] = [];
    while (!answered) {
      const res = await create({ email: `after-end-${written.length + 2}@example.com` });
      written.push(res.json.id);
      await Promise.race([polled, new Promise((r) => setImmediate(r))]);
    }
    const got = answered.json.data.map((e: any) => e.target.id);
    expect(got.length).toBeGreaterThan(0);
    const from = written.indexOf(got[0]);
    expect(from).toBeGreaterThanOrEqual(0);
    expect(got).toEqual(written.slice(from, from + got.length));
  });

  test('a token without events:read is refused (403)', async () => {
    const token = await server.token({ scopes: ['users:read', 'users:write'] });
    const res = await server.req('GET', '/api/events', { token });
    expect(res.status).toBe(403);
    expect(res.text).toContain('events:read');
  });
});

describe('long poll', () => {
  test('wait= holds an empty answer until an event arrives, then answers it', async () => {
    const at = await mark();
    const polled = server.req('GET', `/api/events?after=${at}&wait=30`);
    // The write happens while the poll waits (its answer can only hold it if it waited).
    const made = await create({ email: 'poll@example.com' });
    const res = await polled;
    expect(res.status).toBe(200);
    expect(res.json.data.map((e: any) => e.target.id)).toEqual([made.json.id]);
  });
  test('a poll whose token is revoked while it waits answers 401, not the events that come', async () => {
    const token = await server.token({ scopes: ['events:read'] });
    const { id } = (await server.store.tokens.authenticate(token))!;
    const at = await mark();
    // The poll is waiting once the service subscribes to the log's writes for it.
    const log = server.store.events;
    const subscribe = log.subscribe;
    let polled: ReturnType<TestServer['req']>;
    try {
      const waiting = new Promise<void>((resolve) => {
        log.subscribe = (fn) => {
          resolve();
          return subscribe.call(log, fn);
        };
      });
      polled = server.req('GET', `/api/events?after=${at}&wait=30`, { token });
      await waiting;
    } finally {
      log.subscribe = subscribe;
    }
    expect(await server.store.tokens.revoke(id, TEST_AUDIT)).toBe(true);
    await create({ email: 'after-revoke@example.com' });
    const res = await polled;
    expect(res.status, res.text).toBe(401);
    expect(res.text).not.toContain('after-revoke@example.com');
  });
});

describe('bad input', () => {
  test.each([
    ['?type=user.renamed', 'type', 'user.renamed'],
    ['?type=user.created,bogus.*', 'type', 'bogus.*'],
    ['?wait=61', 'wait', '60'],
    ['?since=yesterday', 'since', 'yesterday'],
    ['?limit=1001', 'limit', '1000'],
    ['?after=forged', 'after', 'cursor'],
    ['?color=red', 'color', 'known'],
    // Filters that filter nothing, or a day no calendar has, are no quiet empty page.
    ['?type=', 'type', 'names no event type'],
    ['?type=,', 'type', 'names no event type'],
    ['?since=2026-02-30T00:00:00Z', 'since', '2026-02-30'],
    ['?until=2026-12-07T24:00:00Z', 'until', '24:00'],
    // An offset that carries the time past year 9999 (it would compare below every time).
    ['?since=9999-12-31T23:30:00-01:00', 'since', '9999'],
    ['?limit=0', 'limit', 'from 1 to 1000'],
  ])('%s is a 400 naming %s', async (query, field, word) => {
    const res = await server.req('GET', `/api/events${query}`);
    expect(res.status).toBe(400);
    const detail = JSON.stringify(res.json);
    expect(detail).toContain(field);
    expect(detail).toContain(word);
  });

  test("another list's cursor, or another tenant's, is a 400", async () => {
    const { next } = await events('?type=user.*');
    expect((await server.req('GET', `/api/events?after=${next}`)).status).toBe(400);
    const other = await server.token({ tenant: 'other.example.com' });
    const res = await server.req('GET', `/api/events?type=user.*&after=${next}`, {
      token: other,
      headers: { host: 'other.example.com' },
    });
    expect(res.status).toBe(400);
    expect(res.text).toContain('another list of events');
  });

  test('a Roster-Run-Id of unsafe characters is a 400', async () => {
    const res = await create({ email: 'run@example.com' }, { 'Roster-Run-Id': 'a b<c>' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('Roster-Run-Id');
  });
});

describe('OPTIONS', () => {
  test('204 with the Allow of its declaration, as every endpoint answers it', async () => {
    const res = await server.req('OPTIONS', '/api/events');
    expect(res.status).toBe(204);
    expect(res.headers.allow).toBe('OPTIONS, GET');
  });
});
