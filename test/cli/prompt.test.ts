import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { noColorEnv } from '../../src/cli/context.js';
import { isPromptExit, prompterOf } from '../../src/cli/prompt.js';
import { fakeIO } from './helpers.js';

describe('the real prompter (@inquirer/prompts on the given streams)', () => {
  it('reads answers from stdin and draws on stderr, never stdout', async () => {
    const fake = fakeIO();
    const stdin = new PassThrough();
    fake.io.stdin = stdin;
    const prompter = prompterOf({ io: fake.io, env: {} });
    // Typed ahead: stdin holds each answer until its prompt reads it.
    const answer = prompter.input({ message: 'Email address' });
    stdin.write('ann@example.com\n');
    expect(await answer).toBe('ann@example.com');
    const confirmed = prompter.confirm({ message: 'Remove?', default: false });
    stdin.write('y\n');
    expect(await confirmed).toBe(true);
    expect(fake.err()).toContain('Email address');
    expect(fake.out()).toBe('');
  });

  it('knows the Ctrl-C error of a prompt', () => {
    expect(isPromptExit(Object.assign(new Error('x'), { name: 'ExitPromptError' }))).toBe(true);
    expect(isPromptExit(new Error('x'))).toBe(false);
  });
});

describe('NO_COLOR', () => {
  it('counts when set to anything but empty', () => {
    expect(noColorEnv({ NO_COLOR: '1' })).toBe(true);
    expect(noColorEnv({ NO_COLOR: '' })).toBe(false);
    expect(noColorEnv({})).toBe(false);
  });
});
