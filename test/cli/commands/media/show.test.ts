import { describe, expect, it } from 'vitest';
import { register, runShow } from '../../../../src/cli/commands/media/show.js';
import { ApiError } from '../../../../src/client/errors.js';
import { fakeIO, parseWith, stubClient, testDeps } from '../../helpers.js';
import { medium } from './helpers.js';

describe('media show', () => {
  it('flags → options', async () => {
    expect(
      await parseWith(register, ['media', 'show', 'm1', '--fields', 'id'], 'media'),
    ).toMatchObject({ id: 'm1', fields: 'id' });
  });

  it('piped: the Medium as JSON; on a terminal: a field/value table', async () => {
    const piped = fakeIO();
    const stub = stubClient({ getMedium: async () => medium() });
    await runShow({ id: 'm1', globals: {} }, testDeps(piped, stub.client));
    expect(JSON.parse(piped.out())).toEqual(JSON.parse(JSON.stringify(medium())));
    expect(stub.calls[0]!.args).toEqual(['m1']);
    const tty = fakeIO({ tty: true });
    await runShow({ id: 'm1', globals: {} }, testDeps(tty, stub.client));
    expect(tty.out()).toMatch(/│ resourceInfo\.width\s+│ 640\s+│/);
    expect(tty.out()).toMatch(/│ transformations\.t_preview\.resourceInfo\.format\s+│ jpg\s+│/);
  });

  it('a missing medium is the client 404 (main maps it to exit 4)', async () => {
    const missing = new ApiError({ status: 404, method: 'GET', url: 'u' });
    const stub = stubClient({
      getMedium: async () => {
        throw missing;
      },
    });
    await expect(runShow({ id: 'x', globals: {} }, testDeps(fakeIO(), stub.client))).rejects.toBe(
      missing,
    );
  });
});
