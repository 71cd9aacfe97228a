/** `roster serve`'s connection cap flag (the server side: test/server/http/slow-headers.test.ts). */
import { expect, test } from 'vitest';
import { register } from '../../../../src/cli/commands/local/serve/index.js';
import type { ServeOptions } from '../../../../src/cli/commands/local/serve/serve-run.js';
import { parseWith } from '../../helpers.js';

test('--max-connections-per-client takes a count, 0 turning the cap off; absent, the default applies', async () => {
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
