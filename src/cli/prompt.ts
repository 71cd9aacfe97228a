/**
 * Questions to the person at the terminal. Commands ask only through a `Prompter`, so tests
 * answer with a script; the real one is @inquirer/prompts, loaded on first use, reading stdin
 * and drawing on stderr (stdout stays data).
 */
import type { Deps } from './context.js';

export interface InputQuestion {
  message: string;
  default?: string;
  required?: boolean;
  /** `true`, or the message saying what is wrong. */
  validate?: (value: string) => true | string;
}

export interface Prompter {
  input(q: InputQuestion): Promise<string>;
  /** Hidden input (tokens). */
  password(q: Omit<InputQuestion, 'default'>): Promise<string>;
  confirm(q: { message: string; default?: boolean }): Promise<boolean>;
  select<T extends string>(q: {
    message: string;
    choices: { value: T; name?: string }[];
    default?: T;
  }): Promise<T>;
}

export function prompterOf(deps: Deps): Prompter {
  if (deps.prompter) return deps.prompter;
  const context = { input: deps.io.stdin, output: deps.io.stderr };
  const load = () => import('@inquirer/prompts');
  deps.prompter = {
    async input(q) {
      return (await load()).input(q, context);
    },
    async password(q) {
      const validate = (v: string) => {
        if (q.required && v.trim() === '') return 'a value is required';
        return q.validate?.(v) ?? true;
      };
      return (await load()).password({ message: q.message, mask: '*', validate }, context);
    },
    async confirm(q) {
      return (await load()).confirm(q, context);
    },
    async select(q) {
      return (await load()).select(q, context);
    },
  };
  return deps.prompter;
}

/** True for the error @inquirer/prompts throws when the person presses Ctrl-C at a prompt. */
export const isPromptExit = (err: unknown) =>
  err instanceof Error && (err.name === 'ExitPromptError' || err.name === 'AbortPromptError');
