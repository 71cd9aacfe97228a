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
