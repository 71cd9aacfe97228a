import { describe, expect, it } from 'vitest';
import { register, runDelete } from '../../../../src/cli/commands/media/delete.js';
import { ApiError } from '../../../../src/client/errors.js';
import { fakeIO, parseWith, scriptedPrompter, stubClient, testDeps } from '../../helpers.js';

const missing = (id: string) =>
  new ApiError({
    status: 404,
    method: 'DELETE',
    url: `u/${id}`,
    envelope: {
      identifier: 40408,
      statusCode: 404,
      message: `medium '${id}' does not exist`,
      type: 'NotFoundException',
    },
  });

function remove(ids: string[], opts: { tty?: boolean; yes?: boolean; answers?: boolean[] }) {
  const fake = fakeIO({ tty: opts.tty });
  const prompter = scriptedPrompter(opts.answers ?? []);
  const stub = stubClient({
    deleteMedium: async (id: string) => {
      if (id.startsWith('gone')) throw missing(id);
    },
  });
  const done = runDelete(
    { ids, globals: { yes: opts.yes, output: 'json' } },
    testDeps(fake, stub.client, { prompter }),
  ).catch((e) => e);
  return { done, fake, prompter, stub };
}

describe('media delete', () => {
  it('flags → options (-y before or after the verb)', async () => {
    for (const argv of [
      ['media', 'delete', 'a', 'b', '--yes'],
      ['-y', 'media', 'delete', 'a', 'b'],
    ]) {
      expect(await parseWith(register, argv, 'media')).toMatchObject({
        ids: ['a', 'b'],
        globals: expect.objectContaining({ yes: true }),
      });
    }
    await expect(parseWith(register, ['media', 'delete'], 'media')).rejects.toThrow(
      /missing required argument/,
    );
  });

  it('not on a terminal and no --yes: exit 2, nothing deleted', async () => {
    const r = remove(['a', 'b'], {});
    const err = await r.done;
    expect(err.exitCode).toBe(2);
    expect(err.message).toBe(
      'not deleting 2 media (a, b): not on a terminal, so nothing was done; pass --yes to confirm',
    );
    expect(r.stub.calls).toEqual([]);
  });

  it('asks on a terminal: no deletes nothing, yes deletes', async () => {
    const no = remove(['a'], { tty: true, answers: [false] });
    const refused = await no.done.catch((e) => e);
    expect(refused.exitCode).toBe(1);
    expect(refused.message).toBe('nothing deleted: not confirmed');
    expect(no.prompter.asked).toEqual(['Delete medium a?']);
    expect(no.stub.calls).toEqual([]);
    const yes = remove(['a', 'a'], { tty: true, answers: [true] });
    await yes.done;
    expect(yes.stub.calls.map((c) => c.args[0])).toEqual(['a']);
  });

  it('--yes: per-id results; some missing → exit 5, all missing → exit 4', async () => {
    const some = remove(['a', 'gone1'], { yes: true });
    expect((await some.done).exitCode).toBe(5);
    expect(JSON.parse(some.fake.out())).toEqual([
      { id: 'a', ok: true, status: 'deleted', error: null },
      { id: 'gone1', ok: false, status: null, error: "medium 'gone1' does not exist" },
    ]);
    expect(some.fake.err()).toContain('1 deleted, 1 failed');
    const none = remove(['gone1', 'gone2'], { yes: true });
    const err = await none.done;
    expect(err.exitCode).toBe(4);
    expect(err.message).toBe('no medium found for gone1, gone2');
  });
});

describe('verb names', () => {
  it.each([
    ['media', 'rm'],
    ['media', 'remove'],
    ['users', 'rm'],
    ['users', 'delete'],
  ])('%s %s is an alias', async (noun, verb) => {
    const { buildProgram } = await import('../../../../src/cli/main.js');
    const fake = fakeIO();
    const program = await buildProgram({ io: fake.io, env: {} }, [noun]);
    const parent = program.commands.find((c) => c.name() === noun)!;
    expect(parent.commands.some((c) => c.aliases().includes(verb))).toBe(true);
  });
});
