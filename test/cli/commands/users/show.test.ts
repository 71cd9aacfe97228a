import { describe, expect, it } from 'vitest';
import { register, runShow } from '../../../../src/cli/commands/users/show.js';
import { ApiError } from '../../../../src/client/errors.js';
import { fakeIO, parseWith, stubClient, testDeps, user } from '../../helpers.js';

describe('users show', () => {
  it('flags → options', async () => {
    expect(
      await parseWith(register, ['users', 'show', 'E-1', '--fields', 'id,role'], 'users'),
    ).toMatchObject({ id: 'E-1', fields: 'id,role' });
    await expect(parseWith(register, ['users', 'show'], 'users')).rejects.toThrow(
      /missing required argument 'id'/,
    );
  });

  it('prints the v3 user: JSON piped, a field/value table on a TTY, --fields', async () => {
    const stub = () => stubClient({ getUser: async () => user() }).client;
    const json = fakeIO();
    await runShow({ id: 'E-1', globals: {} }, testDeps(json, stub()));
    expect(JSON.parse(json.out())).toEqual(user());
    const tty = fakeIO({ tty: true });
    await runShow({ id: 'E-1', globals: {} }, testDeps(tty, stub()));
    expect(tty.out()).toMatch(/│ email\.value\s+│ ann@example\.com\s+│/);
    const picked = fakeIO();
    await runShow(
      { id: 'E-1', fields: 'id,email.value', globals: { output: 'ndjson' } },
      testDeps(picked, stub()),
    );
    expect(picked.out()).toBe(
      '{"id":"65f000000000000000000001","email":{"value":"ann@example.com"}}\n',
    );
  });

  it('lets a 404 through to main (exit 4)', async () => {
    const notFound = new ApiError({ status: 404, method: 'GET', url: 'u' });
    const stub = stubClient({
      getUser: async () => {
        throw notFound;
      },
    });
    await expect(
      runShow({ id: 'nope', globals: {} }, testDeps(fakeIO(), stub.client)),
    ).rejects.toBe(notFound);
  });
});
