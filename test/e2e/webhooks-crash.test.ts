/**
 * The webhook journey through a real `roster serve`: killed with SIGKILL while a delivery is in
 * flight (the receiver holds it unanswered), then started again on the same data dir, it
 * delivers what was pending — the one cut off and the one waiting behind it — with the same
 * webhook-id (at least once: the receiver dedupes).
 */
import { afterAll, expect, test } from 'vitest';
import { profileToken, spawnServe } from '../helpers/e2e.js';
import { eventually } from '../helpers/eventually.js';
import { scratch } from '../helpers/scratch.js';
import { requester, V3 } from '../helpers/server.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

const dirs = scratch();
afterAll(() => dirs.cleanup());

const FLAGS = ['--webhooks-allow', '127.0.0.1/32', '--webhooks-allow-http'];

test('serve killed mid-delivery and started again delivers what was pending', async () => {
  const dataDir = dirs.temp('roster-wh-data-');
  const configDir = dirs.temp('roster-wh-config-');
  const receiver = await startReceiver();
  dirs.defer(() => receiver.close());
  receiver.answer(() => {}); // holds every request: the delivery is in flight when serve dies
  const first = await spawnServe(dataDir, configDir, FLAGS);
  const token = profileToken(configDir)!;
  let req = requester(first.url, token);
  const hook = await req('POST', '/api/webhooks', {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url: `${receiver.url}/in`, types: ['user.created'] }),
  });
  expect(hook.status, hook.text).toBe(201);
  const made = async (email: string) => {
    const res = await req('POST', '/api/users', {
      headers: { 'content-type': V3, accept: V3 },
      body: JSON.stringify({ email }),
    });
    expect(res.status, res.text).toBe(201);
    return (await req('GET', `/api/events?target=${res.json.id}`)).json.data[0].id as string;
  };
  const cut = await made('cut@example.com');
  await receiver.next((r) => r.headers['webhook-id'] === cut);
  const waiting = await made('waiting@example.com');
  first.child.kill('SIGKILL');
  expect((await first.child).signal).toBe('SIGKILL');

  receiver.answer((_q, res) => res.writeHead(204).end());
  const second = await spawnServe(dataDir, configDir, FLAGS);
  dirs.defer(async () => {
    second.child.kill('SIGTERM');
    await second.child;
  });
  req = requester(second.url, token);
  await receiver.next((r) => r.headers['webhook-id'] === waiting);
  const ids = () => receiver.received.map((r) => r.headers['webhook-id']);
  await eventually(() => ids().filter((id) => id === cut).length === 2);
  await eventually(async () => {
    const d = (await req('GET', `/api/webhooks/${hook.json.id}/deliveries`)).json.data as any[];
    return d.length === 2 && d.every((x) => x.status === 'delivered');
  });
});
