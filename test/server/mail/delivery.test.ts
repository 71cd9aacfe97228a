import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterEach, expect, test } from 'vitest';
import { eventually } from '../../helpers/eventually.js';
import { freePort } from '../../helpers/fake-server.js';
import { jsonBody, startServer, type TestServer } from '../../helpers/server.js';

interface Received {
  from: string;
  to: string[];
  raw: string;
}

/** A real SMTP server on loopback (no TLS, no auth), collecting what it is sent. */
async function smtp(port = 0) {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  const address = server.server.address() as { port: number };
  return {
    received,
    port: address.port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

const invite = (s: TestServer, body: Record<string, unknown>) =>
  s.req('POST', '/api/users', jsonBody({ sendMail: true, ...body }));

test('with --smtp-url the invitation goes to the relay, with a stable Message-ID; none to a user given a secret', async () => {
  const relay = await smtp();
  open.push(relay);
  const s = await startServer({ smtpUrl: `smtp://127.0.0.1:${relay.port}` });
  open.push(s);
  // Created activated with a one-time password: nothing to sign up for, so no invitation.
  const activated = await invite(s, { email: 'cem@example.com', secret: 'one-time-pass-1' });
  expect(activated.status).toBe(201);
  const r = await invite(s, { email: 'ann@example.com', profile: { firstName: 'Ann' } });
  expect(r.status).toBe(201);
  await eventually(async () => (await s.store.outbox.pending()) === 0);
  expect(relay.received).toHaveLength(1);
  const [mail] = relay.received;
  expect(mail!.to).toEqual(['ann@example.com']);
  expect(mail!.from).toBe('roster@localhost');
  const parsed = await simpleParser(mail!.raw);
  expect(parsed.messageId).toBe(`<invitation.${r.json.id}@roster.localhost>`);
  expect(parsed.subject).toBe('You are invited to your organisation');
  expect(parsed.text).toContain('Hello Ann,');
  expect(mail!.raw).not.toContain('one-time-pass-1');
  expect(await s.store.outbox.pending()).toBe(0);
});

test('a relay that is down gets the message later, once, when it is back', async () => {
  const port = await freePort();
  const s = await startServer({ smtpUrl: `smtp://127.0.0.1:${port}`, mailRetryBaseMs: 50 });
  open.push(s);
  const r = await invite(s, { email: 'bob@example.com' });
  expect(r.status).toBe(201);
  await eventually(() => s.logs.some((l) => l.includes('not delivered (attempt 1)')));
  expect(await s.store.outbox.pending()).toBe(1);

  const relay = await smtp(port);
  open.push(relay);
  await eventually(async () => (await s.store.outbox.pending()) === 0, 10_000);
  expect(relay.received).toHaveLength(1);
  expect(relay.received[0]!.raw).toContain(
    `Message-ID: <invitation.${r.json.id}@roster.localhost>`,
  );
});

test('a user and their invitation commit together: a refused user queues nothing', async () => {
  const port = await freePort();
  const s = await startServer({ smtpUrl: `smtp://127.0.0.1:${port}`, mailRetryBaseMs: 60_000 });
  open.push(s);
  expect((await invite(s, { email: 'dup@example.com', externalId: 'd-1' })).status).toBe(201);
  expect((await invite(s, { email: 'other@example.com', externalId: 'd-1' })).status).toBe(409);
  expect((await invite(s, { email: 'nomail@example.com', sendMail: false })).status).toBe(201);
  expect(await s.store.outbox.pending()).toBe(1);
});
