/**
 * The egress guard: the table of refused addresses (each with the reason a person reads), the
 * URL checks a POST answers 400 with, the allow list's parser, and real connections through the
 * guarded dispatcher to a receiver on 127.0.0.1 (refused, then allowed), by literal address and
 * by a name that resolves to loopback (an injected resolver: DNS rebinding).
 */
import { createServer } from 'node:http';
import type { LookupFunction } from 'node:net';
import { connect as netConnect } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkWebhookUrl,
  EgressRefusedError,
  guardedDispatcher,
  hostRefusal,
  parseAllowList,
} from '../../../src/server/webhooks/egress.js';
import { startServer } from '../../helpers/fake-server.js';

describe('which addresses are refused', () => {
  const refused: [string, RegExp][] = [
    ['0.0.0.0', /unspecified/],
    ['0.1.2.3', /this network/],
    ['127.0.0.1', /loopback/],
    ['127.255.0.9', /loopback/],
    ['10.1.2.3', /private/],
    ['172.16.0.1', /private/],
    ['172.31.255.255', /private/],
    ['192.168.1.1', /private/],
    ['169.254.169.254', /link-local.*metadata/],
    ['100.64.0.1', /carrier-grade NAT/],
    ['100.127.255.255', /carrier-grade NAT/],
    ['224.0.0.1', /multicast/],
    ['239.255.255.250', /multicast/],
    ['255.255.255.255', /broadcast/],
    ['::', /unspecified/],
    ['::1', /loopback/],
    ['fe80::1', /link-local/],
    ['fc00::1', /private/],
    ['fd12:3456::1', /private/],
    ['ff02::1', /multicast/],
    ['::ffff:127.0.0.1', /IPv4-mapped form of 127\.0\.0\.1, a loopback/],
    ['::ffff:7f00:1', /IPv4-mapped form of 127\.0\.0\.1/],
    ['::ffff:169.254.169.254', /IPv4-mapped form of 169\.254\.169\.254, a link-local/],
    ['::ffff:10.0.0.1', /IPv4-mapped form of 10\.0\.0\.1, a private/],
    ['::127.0.0.1', /IPv4-compatible form of 127\.0\.0\.1/],
    ['::a9fe:a9fe', /IPv4-compatible form of 169\.254\.169\.254/],
    ['64:ff9b::a00:1', /NAT64 form of 10\.0\.0\.1/],
    ['2002:7f00:1::', /6to4 form of 127\.0\.0\.1/],
  ];
  it.each(refused)('%s is refused (%s)', (address, why) => {
    expect(hostRefusal(address)).toMatch(why);
    expect(hostRefusal(address)).toMatch(/serve --webhooks-allow \S+\/(32|128) allows it/);
  });

  const public_ = [
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '192.169.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '2002:808:808::',
  ];
  it.each(public_)('%s is a public address', (address) => {
    expect(hostRefusal(address)).toBeUndefined();
  });

  it('the URL parser’s other spellings of 127.0.0.1 are refused, and localhost names', () => {
    for (const url of [
      'https://127.1/',
      'https://0x7f000001/',
      'https://2130706433/',
      'https://0177.0.0.1/',
      'https://[::ffff:127.0.0.1]/',
      'https://[0:0:0:0:0:0:0:1]/',
      'https://LOCALHOST/',
      'https://hooks.localhost./',
    ]) {
      expect(checkWebhookUrl(url, {}), url).toEqual([
        { field: 'url', message: expect.stringMatching(/^url host .*loopback/) },
      ]);
    }
  });

  it('inside an allowed range, a refused address is allowed (its IPv4-mapped form too)', () => {
    const allow = parseAllowList('127.0.0.0/8, 10.0.0.0/8,fd00::/8');
    for (const address of ['127.0.0.1', '::ffff:127.0.0.1', '10.9.9.9', 'fd00::5', 'localhost']) {
      expect(hostRefusal(address, allow), address).toBeUndefined();
    }
    expect(hostRefusal('192.168.0.1', allow)).toMatch(/private/);
    expect(hostRefusal('::1', allow)).toMatch(/loopback/);
  });
});

describe('checkWebhookUrl (the POST 400 details)', () => {
  it('a public https URL passes', () => {
    expect(checkWebhookUrl('https://hooks.example.com/roster?x=1', {})).toEqual([]);
  });

  it('https only, unless allowHttp; never another scheme', () => {
    expect(checkWebhookUrl('http://hooks.example.com/', {})).toEqual([
      { field: 'url', message: expect.stringMatching(/https:\/\/.*--webhooks-allow-http/) },
    ]);
    expect(checkWebhookUrl('http://hooks.example.com/', { allowHttp: true })).toEqual([]);
    for (const url of ['ftp://hooks.example.com/', 'file:///etc/passwd', 'javascript:alert(1)']) {
      expect(checkWebhookUrl(url, { allowHttp: true })[0]?.message, url).toMatch(
        /http:\/\/ or https:\/\//,
      );
    }
  });

  it('no credentials in the URL', () => {
    for (const url of ['https://user:pw@hooks.example.com/', 'https://user@hooks.example.com/']) {
      expect(checkWebhookUrl(url, {})).toEqual([
        { field: 'url', message: expect.stringMatching(/user name or password/) },
      ]);
    }
  });

  it('at most 2,048 characters; not a URL at all', () => {
    const base = 'https://hooks.example.com/';
    expect(checkWebhookUrl(base + 'a'.repeat(2048 - base.length), {})).toEqual([]);
    expect(checkWebhookUrl(base + 'a'.repeat(2049 - base.length), {})).toEqual([
      { field: 'url', message: 'url is 2049 characters long; at most 2048' },
    ]);
    expect(checkWebhookUrl('hooks.example.com/x', {})[0]?.message).toMatch(/not an absolute URL/);
  });

  it('several issues at once', () => {
    expect(checkWebhookUrl('http://a:b@10.0.0.1/', {})).toHaveLength(3);
  });
});

describe('parseAllowList (serve --webhooks-allow)', () => {
  it('CIDRs and single addresses', () => {
    expect(parseAllowList('10.0.0.0/8,::1/128, 192.168.1.7').map((c) => c.bits)).toEqual([
      8, 128, 32,
    ]);
  });

  it.each([
    [
      '10.0.0.0/33',
      /--webhooks-allow: '10\.0\.0\.0\/33': the prefix length of an IPv4 range is 0 to 32/,
    ],
    ['10.0.0.0/8,banana', /--webhooks-allow: 'banana' is not an IP range/],
    ['10.0.0.1/8', /'10\.0\.0\.1\/8' has bits set after the prefix; did you mean 10\.0\.0\.0\/8\?/],
    ['fe80::1%eth0/64', /'fe80::1%eth0\/64' is not an IP range/],
    ['::1/129', /IPv6 range is 0 to 128/],
    ['10.0.0.0/8/8', /not an IP range/],
    [' , ', /no IP range given/],
  ])('%s is refused, naming the entry', (text, message) => {
    expect(() => parseAllowList(text)).toThrow(message);
  });
});

describe('guardedDispatcher: real connections to a receiver on 127.0.0.1', () => {
  let receiver: Awaited<ReturnType<typeof startServer>>;
  let port: number;
  beforeAll(async () => {
    receiver = await startServer((_req, res) => {
      res.end('ok');
    });
    port = Number(new URL(receiver.origin).port);
  });
  afterAll(() => receiver.close());

  const post = async (url: string, dispatcher: ReturnType<typeof guardedDispatcher>) => {
    try {
      const answer = await request(url, { method: 'POST', body: '{}', dispatcher });
      return { status: answer.statusCode, body: await answer.body.text() };
    } finally {
      await dispatcher.close();
    }
  };
  /** A resolver that answers every name with these addresses (a rebinding DNS server's lie). */
  const resolvesTo =
    (...addresses: string[]): LookupFunction =>
    (_host, _opts, callback) =>
      (callback as (e: null, a: { address: string; family: number }[]) => void)(
        null,
        addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      );

  it('127.0.0.1 literally: refused before connecting, without an allow list', async () => {
    const before = receiver.connections();
    const error = await post(
      `http://127.0.0.1:${port}/hook`,
      guardedDispatcher({ allowHttp: true }),
    ).catch((e) => e);
    expect(error).toBeInstanceOf(EgressRefusedError);
    expect(error.message).toMatch(
      /127\.0\.0\.1 is a loopback address; serve --webhooks-allow 127\.0\.0\.1\/32/,
    );
    expect(receiver.connections()).toBe(before);
  });

  it('127.0.0.1 literally: delivered with 127.0.0.0/8 allowed', async () => {
    const dispatcher = guardedDispatcher({ allowHttp: true, allow: parseAllowList('127.0.0.0/8') });
    expect(await post(`http://127.0.0.1:${port}/hook`, dispatcher)).toEqual({
      status: 200,
      body: 'ok',
    });
  });

  it('http:// without allowHttp: refused before connecting (an endpoint kept from a serve that allowed it)', async () => {
    const before = receiver.connections();
    const dispatcher = guardedDispatcher({ allow: parseAllowList('127.0.0.0/8') });
    const error = await post(`http://127.0.0.1:${port}/hook`, dispatcher).catch((e) => e);
    expect(error).toBeInstanceOf(EgressRefusedError);
    expect(error.message).toBe(
      "refused to deliver over http://: serve runs without --webhooks-allow-http; change the webhook's url to https://, or start serve with --webhooks-allow-http",
    );
    expect(receiver.connections()).toBe(before);
  });

  it('a name that resolves to 127.0.0.1 is refused at connect time, naming the address', async () => {
    const before = receiver.connections();
    const dispatcher = guardedDispatcher({ allowHttp: true }, { lookup: resolvesTo('127.0.0.1') });
    const error = await post(`http://hooks.example.com:${port}/`, dispatcher).catch((e) => e);
    expect(error).toBeInstanceOf(EgressRefusedError);
    expect(error.message).toBe(
      'refused to connect to 127.0.0.1 (hooks.example.com resolves to it): a loopback address; serve --webhooks-allow 127.0.0.1/32 allows it',
    );
    expect(receiver.connections()).toBe(before);
  });

  it('every resolved address is checked: one refused among public ones refuses the name', async () => {
    const dispatcher = guardedDispatcher(
      { allowHttp: true },
      { lookup: resolvesTo('93.184.216.34', '::ffff:169.254.169.254') },
    );
    const error = await post(`http://hooks.example.com:${port}/`, dispatcher).catch((e) => e);
    expect(error.message).toMatch(
      /refused to connect to ::ffff:169\.254\.169\.254 .*IPv4-mapped form of 169\.254\.169\.254/,
    );
  });

  it('a name that resolves to 127.0.0.1 is delivered to when 127.0.0.1 is allowed', async () => {
    const dispatcher = guardedDispatcher(
      { allowHttp: true, allow: parseAllowList('127.0.0.1') },
      { lookup: resolvesTo('127.0.0.1') },
    );
    expect(await post(`http://hooks.example.com:${port}/`, dispatcher)).toEqual({
      status: 200,
      body: 'ok',
    });
  });

  it('with a proxy, the proxy resolves the name (its own loopback address is not refused); a literal address is still refused', async () => {
    const asked: string[] = [];
    // A CONNECT proxy that tunnels every name to the receiver.
    const proxy = createServer();
    proxy.on('connect', (req, socket) => {
      asked.push(req.url ?? '');
      const upstream = netConnect(port, '127.0.0.1', () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.pipe(socket).pipe(upstream);
      });
      socket.on('error', () => upstream.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
    try {
      const policy = { allowHttp: true, proxy: { http: proxyUrl } };
      expect(await post('http://hooks.example.com/x', guardedDispatcher(policy))).toEqual({
        status: 200,
        body: 'ok',
      });
      expect(asked).toEqual(['hooks.example.com:80']);
      const error = await post('http://169.254.169.254/latest', guardedDispatcher(policy)).catch(
        (e) => e,
      );
      expect(error.message).toMatch(
        /^refused to deliver: 169\.254\.169\.254 is a link-local address/,
      );
      const local = await post('http://localhost/', guardedDispatcher(policy)).catch((e) => e);
      expect(local.message).toMatch(/^refused to deliver: localhost is a loopback address/);
      expect(asked).toHaveLength(1);
    } finally {
      proxy.closeAllConnections?.();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });
});
