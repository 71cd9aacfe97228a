import { describe, expect, it } from 'vitest';
import * as activate from '../../../../src/cli/commands/users/activate.js';
import * as deactivate from '../../../../src/cli/commands/users/deactivate.js';
import {
  register as registerRemove,
  runRemove,
} from '../../../../src/cli/commands/users/remove.js';
import { runSetStatus } from '../../../../src/cli/commands/users/set-status.js';
import { ApiError, NetworkError, ResponseFormatError } from '../../../../src/client/errors.js';
import { fakeIO, parseWith, scriptedPrompter, stubClient, testDeps, user } from '../../helpers.js';

const apiError = (status: number, message = `m${status}`) =>
  new ApiError({
    status,
    method: 'PUT',
    url: 'u',
    envelope: { identifier: 1, statusCode: status, message, type: 'T' },
  });

/** updateUser/deleteUser that fail for the ids in `failures`. */
const byId = (failures: Record<string, Error>) => async (id: string) => {
  if (failures[id]) throw failures[id];
  return user({ id, status: 'deactivated' });
};

describe('activate / deactivate / remove: flags → options', () => {
  it.each([
    [activate.register, ['users', 'activate', 'a', 'b'], { ids: ['a', 'b'], status: 'activated' }],
    [deactivate.register, ['users', 'deactivate', 'a'], { ids: ['a'], status: 'deactivated' }],
    [
      registerRemove,
      ['users', 'remove', 'a', 'b', '-y'],
      { ids: ['a', 'b'], globals: expect.objectContaining({ yes: true }) },
    ],
    [
      registerRemove,
      ['-y', 'users', 'remove', 'a'],
      { ids: ['a'], globals: expect.objectContaining({ yes: true }) },
    ],
  ])('%#', async (register, argv, expected) => {
    expect(await parseWith(register as any, argv, 'users')).toMatchObject(expected);
  });

  it('needs at least one id', async () => {
    await expect(parseWith(activate.register, ['users', 'activate'], 'users')).rejects.toThrow(
      /missing required argument/,
    );
  });
});

describe('several ids: per-id results and the exit code', () => {
  const run = async (ids: string[], failures: Record<string, Error>, output = 'json') => {
    const fake = fakeIO();
    const stub = stubClient({ updateUser: byId(failures) });
    const err = await runSetStatus(
      { ids, status: 'deactivated', globals: { output } },
      testDeps(fake, stub.client),
    ).catch((e) => e);
    return { err, out: fake.out(), errText: fake.err(), calls: stub.calls };
  };

  it('all done: exit 0, one result per id (duplicates once)', async () => {
    const r = await run(['a', 'b', 'a'], {});
    expect(r.err).toBeUndefined();
    expect(JSON.parse(r.out)).toEqual([
      { id: 'a', ok: true, status: 'deactivated', error: null },
      { id: 'b', ok: true, status: 'deactivated', error: null },
    ]);
    expect(r.errText).toContain('2 deactivated, 0 failed');
  });

  it('some failed: exit 5, failures reported per id', async () => {
    const r = await run(['a', 'b', 'c'], { b: apiError(404, "no user 'b'") });
    expect(r.err.exitCode).toBe(5);
    expect(r.err.message).toBe('1 of 3 failed');
    expect(JSON.parse(r.out)[1]).toEqual({
      id: 'b',
      ok: false,
      status: null,
      error: "no user 'b'",
    });
    expect(r.errText).toContain("failed b: no user 'b'");
  });

  it('none found: exit 4; none done for other reasons: exit 1', async () => {
    expect((await run(['a', 'b'], { a: apiError(404), b: apiError(404) })).err.exitCode).toBe(4);
    expect((await run(['a', 'b'], { a: apiError(404), b: apiError(409) })).err.exitCode).toBe(1);
  });

  it('a rejected token stops at once (main maps it to 3); done ids are still printed', async () => {
    const denied = apiError(401);
    const r = await run(['a', 'b', 'c'], { b: denied });
    expect(r.err).toBe(denied);
    expect(r.calls.map((c) => c.args[0])).toEqual(['a', 'b']);
    expect(JSON.parse(r.out)).toHaveLength(1);
  });

  it('a lost connection stops at once', async () => {
    const lost = new NetworkError({
      method: 'PUT',
      url: 'http://x/api/users/a',
      code: 'ECONNREFUSED',
      cause: null,
      attempts: 5,
      timeoutMs: 1,
    });
    const r = await run(['a', 'b'], { a: lost });
    expect(r.err).toBe(lost);
    expect(r.out).toBe('');
  });

  it("a connection reset mid-answer is that id's failure; the next id is tried", async () => {
    const reset = new NetworkError({
      method: 'PUT',
      url: 'http://x/api/users/a',
      code: 'UND_ERR_SOCKET',
      cause: null,
      attempts: 1,
      timeoutMs: 1,
    });
    const r = await run(['a', 'b'], { a: reset });
    expect(r.err.exitCode).toBe(5);
    expect(r.calls.map((c) => c.args[0])).toEqual(['a', 'b']);
    expect(JSON.parse(r.out)[0]).toEqual({
      id: 'a',
      ok: false,
      status: null,
      error: reset.message.split('\n')[0],
    });
  });

  it('an answer that is not the API (the base URL) stops at once', async () => {
    const html = new ResponseFormatError({
      status: 200,
      method: 'PUT',
      url: 'http://x/api/users/a',
      contentType: 'text/html',
    });
    const r = await run(['a', 'b'], { a: html });
    expect(r.err).toBe(html);
    expect(r.calls).toHaveLength(1);
  });

  it('a table on a TTY carries the errors (no separate stderr lines)', async () => {
    const fake = fakeIO({ tty: true });
    const stub = stubClient({ updateUser: byId({ b: apiError(404, 'gone') }) });
    await runSetStatus(
      { ids: ['a', 'b'], status: 'deactivated', globals: {} },
      testDeps(fake, stub.client),
    ).catch(() => {});
    expect(fake.out()).toMatch(/│ b\s+│ failed\s+│\s+│ gone\s+│/);
    expect(fake.err()).not.toContain('failed b');
  });
});

describe('users remove: confirmation', () => {
  const remove = (tty: boolean, yes: boolean, answers: boolean[] = []) => {
    const fake = fakeIO({ tty });
    const prompter = scriptedPrompter(answers);
    const stub = stubClient({ deleteUser: async () => undefined });
    const done = runRemove(
      { ids: ['a', 'b'], globals: { yes } },
      testDeps(fake, stub.client, { prompter }),
    );
    return { done, stub, prompter, fake };
  };

  it('refuses without a terminal and without --yes: exit 2, nothing removed', async () => {
    const { done, stub } = remove(false, false);
    const err = await done.catch((e) => e);
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain('pass --yes');
    expect(stub.calls).toEqual([]);
  });

  it('--yes removes without asking', async () => {
    const { done, stub, prompter } = remove(false, true);
    await done;
    expect(stub.calls.map((c) => c.args[0])).toEqual(['a', 'b']);
    expect(prompter.asked).toEqual([]);
  });

  it('asks on a terminal: yes removes, no removes nothing and exits 1', async () => {
    const yes = remove(true, false, [true]);
    await yes.done;
    expect(yes.prompter.asked).toEqual(['Remove 2 users (a, b)?']);
    expect(yes.stub.calls).toHaveLength(2);
    const no = remove(true, false, [false]);
    const refused = await no.done.catch((e) => e);
    expect(refused.exitCode).toBe(1);
    expect(refused.message).toBe('nothing removed: not confirmed');
    expect(no.stub.calls).toEqual([]);
  });

  it('the question names each user by name and email, fetched before asking', async () => {
    const fake = fakeIO({ tty: true });
    const prompter = scriptedPrompter([false]);
    const ann = user({ id: 'a', profile: { firstName: 'Ann', lastName: 'Smith' } as any });
    const stub = stubClient({
      getUser: async (id: string) => {
        if (id === 'a') return ann;
        throw apiError(404);
      },
      deleteUser: async () => undefined,
    });
    const err = await runRemove(
      { ids: ['a', 'gone'], globals: {} },
      testDeps(fake, stub.client, { prompter }),
    ).catch((e) => e);
    expect(err.message).toBe('nothing removed: not confirmed');
    // A user not found is named by what was given; the batch reports it if confirmed.
    expect(prompter.asked).toEqual(['Remove 2 users (Ann Smith <ann@example.com> [a], gone)?']);
    expect(stub.calls.map((c) => c.method)).toEqual(['getUser', 'getUser']);
  });

  it('one user by email: named once, with its id', async () => {
    const fake = fakeIO({ tty: true });
    const prompter = scriptedPrompter([false]);
    const ann = user({ id: 'a1', profile: { firstName: 'Ann' } as any });
    const stub = stubClient({
      iterateUsers: async function* () {
        yield ann;
      },
    });
    await runRemove(
      { ids: ['ann@example.com'], globals: {} },
      testDeps(fake, stub.client, { prompter }),
    ).catch(() => {});
    expect(prompter.asked).toEqual(['Remove user Ann <ann@example.com> [a1]?']);
  });
});
