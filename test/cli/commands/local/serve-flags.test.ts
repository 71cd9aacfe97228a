/** `roster serve`'s flags → options (the run itself: test/server and test/e2e). */
import { describe, expect, it } from 'vitest';
import { register } from '../../../../src/cli/commands/local/serve/index.js';
import type { ServeOptions } from '../../../../src/cli/commands/local/serve/serve-run.js';
import { parseWith } from '../../helpers.js';

describe('serve --strip-metadata', () => {
  it('is off unless given', async () => {
    const opts = await parseWith<ServeOptions>(register, ['serve']);
    expect(opts.stripMetadata).toBeUndefined();
  });

  it('given, asks the service to strip image uploads', async () => {
    const opts = await parseWith<ServeOptions>(register, ['serve', '--strip-metadata']);
    expect(opts.stripMetadata).toBe(true);
  });
});

describe('serve --max-connections-per-client (the server side: test/server/http/slow-headers.test.ts)', () => {
  it('takes a count, 0 turning the cap off; absent, the default applies', async () => {
    const given = await parseWith<ServeOptions>(register, [
      'serve',
      '--max-connections-per-client',
      '0',
    ]);
    expect(given.maxConnectionsPerClient).toBe(0);
    const absent = await parseWith<ServeOptions>(register, ['serve']);
    expect(absent.maxConnectionsPerClient).toBeUndefined();
    await expect(
      parseWith<ServeOptions>(register, ['serve', '--max-connections-per-client', 'many']),
    ).rejects.toThrow();
  });
});

describe('serve --webhooks-allow and --webhooks-allow-http (delivery: test/server/webhooks)', () => {
  it('take a CIDR list and a switch; absent, neither', async () => {
    const given = await parseWith<ServeOptions>(register, [
      'serve',
      '--webhooks-allow',
      '10.20.0.0/16,127.0.0.1/32',
      '--webhooks-allow-http',
    ]);
    expect(given).toMatchObject({
      webhooksAllow: '10.20.0.0/16,127.0.0.1/32',
      webhooksAllowHttp: true,
    });
    const absent = await parseWith<ServeOptions>(register, ['serve']);
    expect(absent.webhooksAllow).toBeUndefined();
    expect(absent.webhooksAllowHttp).toBeUndefined();
  });
});
