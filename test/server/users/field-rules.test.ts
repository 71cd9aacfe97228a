/** Field round 3 (issue 44): a user created activated with a secret gets no sign-up invitation. */
import { expect, test } from 'vitest';
import { jsonBody, serverForFile, V3 } from '../../helpers/server.js';

// No mail server there, and no retry soon: an invitation stays in the outbox to be counted.
const server = await serverForFile({
  smtpUrl: 'smtp://127.0.0.1:9',
  mailRetryBaseMs: 3_600_000,
});

test('a POST with a secret activates the user and sends no "sign up" invitation', async () => {
  const before = await server.store.outbox.pending();
  const withSecret = await server.req(
    'POST',
    '/api/users',
    jsonBody({ email: 'has-secret@example.com', secret: 'One-time-Pass-1' }, V3),
  );
  expect(withSecret.status).toBe(201);
  expect(withSecret.json.status).toBe('activated');
  expect(await server.store.outbox.pending()).toBe(before);
  // Without one, the invitation is written as before.
  const pending = await server.req(
    'POST',
    '/api/users',
    jsonBody({ email: 'no-secret@example.com' }, V3),
  );
  expect(pending.json.status).toBe('pending');
  expect(await server.store.outbox.pending()).toBe(before + 1);
});
