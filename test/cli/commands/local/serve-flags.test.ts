/** `roster serve`'s flags → options (the run itself: test/server and test/e2e). */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { register } from '../../../../src/cli/commands/local/serve/index.js';
import type { ServeOptions } from '../../../../src/cli/commands/local/serve/serve-run.js';
import { cliWith } from '../../../helpers/cli-run.js';
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

describe('serve --webhooks-allow with a bad range', () => {
  it('is a usage error naming the entry once, before any data dir is touched', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roster-serve-flags-'));
    try {
      const data = join(dir, 'data');
      const r = await cliWith({ ROSTER_CONFIG_DIR: join(dir, 'config') })([
        ...['serve', '--port', '0', '--data', data, '--webhooks-allow', '10.0.0.0/8,10.1.0.0/33'],
      ]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(
        /^error: --webhooks-allow: '10\.1\.0\.0\/33': the prefix length of an IPv4 range is 0 to 32$/m,
      );
      expect(existsSync(data)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
