/** Fakes for command tests: streams that record, a scripted prompter, a stubbed API client. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import type { Command } from 'commander';
import { expect } from 'vitest';
import type { Deps, IO } from '../../src/cli/context.js';
import { createRoot } from '../../src/cli/main.js';
import type { Prompter } from '../../src/cli/prompt.js';
import type { ApiClient } from '../../src/client/index.js';
import type { UserV3 } from '../../src/contract/user.js';

export interface FakeIO {
  io: IO;
  out(): string;
  err(): string;
}

/** IO with recorded stdout/stderr; `tty` makes all three streams terminals. */
export function fakeIO({ tty = false, stdin = '' } = {}): FakeIO {
  const record = () => {
    const stream = new PassThrough();
    let text = '';
    stream.on('data', (c: Buffer) => {
      text += c.toString();
    });
    return { stream, text: () => text };
  };
  const out = record();
  const err = record();
  return {
    io: {
      stdout: out.stream,
      stderr: err.stream,
      stdin: Readable.from([stdin]),
      stdoutIsTTY: tty,
      stderrIsTTY: tty,
      stdinIsTTY: tty,
      color: false,
      stderrColor: false,
    },
    out: out.text,
    err: err.text,
  };
}

/** Answers prompts in order; fails the test on a question nobody scripted. */
export function scriptedPrompter(answers: (string | boolean)[]): Prompter & { asked: string[] } {
  const asked: string[] = [];
  const next = (message: string) => {
    asked.push(message);
    if (answers.length === 0) throw new Error(`unexpected prompt: ${message}`);
    return answers.shift()!;
  };
  return {
    asked,
    input: async (q) => String(next(q.message)),
    password: async (q) => String(next(q.message)),
    confirm: async (q) => Boolean(next(q.message)),
    select: async (q) => next(q.message) as never,
  };
}

type Stubs = Partial<{ [K in keyof ApiClient]: ApiClient[K] }>;

/**
 * An ApiClient whose methods are the given stubs; any other call throws, and
 * `assertAllUsed()` fails when a stub was never called (the test expected a request).
 */
export function stubClient(stubs: Stubs) {
  const used = new Set<string>();
  const calls: { method: string; args: unknown[] }[] = [];
  const client = new Proxy({} as ApiClient, {
    get(_target, key: string) {
      if (key === 'close') return async () => {};
      if (key === 'then') return undefined;
      if (key === 'http' && !stubs.http)
        return { baseUrl: 'http://api.test/api', vendor: 'service' };
      const stub = (stubs as Record<string, unknown>)[key];
      if (typeof stub !== 'function') {
        if (stub !== undefined) return stub;
        return () => {
          throw new Error(`unexpected client call: ${key}`);
        };
      }
      return (...args: unknown[]) => {
        used.add(key);
        calls.push({ method: key, args });
        return stub(...args);
      };
    },
  });
  return {
    client,
    calls,
    assertAllUsed() {
      // Values (http, userDefaults) are read, not called.
      const unused = Object.keys(stubs).filter(
        (k) => typeof (stubs as Record<string, unknown>)[k] === 'function' && !used.has(k),
      );
      expect(unused, 'stubs never called').toEqual([]);
    },
  };
}

/** Deps for a command test: env points at a fake service, `connect` hands out `client`. */
export function testDeps(fake: FakeIO, client?: ApiClient, extra: Partial<Deps> = {}): Deps {
  return {
    io: fake.io,
    env: { ROSTER_BASE_URL: 'http://api.test/api', ROSTER_TOKEN: 'dG9rZW4=' },
    ...(client ? { connect: () => client } : {}),
    ...extra,
  };
}

/** Parses argv with the real global options and one command module, capturing its options. */
export async function parseWith<T>(
  register: (parent: Command, deps: Deps, runFn: (opts: T, deps: Deps) => Promise<void>) => unknown,
  argv: string[],
  group?: string,
): Promise<T> {
  const fake = fakeIO();
  const deps = testDeps(fake);
  const root = createRoot(deps);
  const parent = group ? root.command(group) : root;
  let captured: T | undefined;
  register(parent, deps, async (opts) => {
    captured = opts;
  });
  for (const c of [root, ...root.commands, ...root.commands.flatMap((c) => c.commands)])
    c.exitOverride();
  await root.parseAsync(argv, { from: 'user' });
  if (captured === undefined) throw new Error(`no action ran for ${argv.join(' ')}`);
  return captured;
}

/** A temp ROSTER_CONFIG_DIR, removed by the returned function. */
export function tempConfigDir(): [string, () => void] {
  const dir = mkdtempSync(join(tmpdir(), 'roster-cli-test-'));
  return [dir, () => rmSync(dir, { recursive: true, force: true })];
}

export function user(overrides: Partial<UserV3> = {}): UserV3 {
  return {
    id: '65f000000000000000000001',
    status: 'activated',
    role: 'reader',
    createdAt: '2026-01-01T00:00:00.000Z',
    activatedAt: '2026-01-01T00:00:00.000Z',
    externalId: 'E-1',
    email: { value: 'ann@example.com', source: 'system' },
    userName: null,
    config: { locale: 'de_DE' },
    profile: { firstName: 'Ann', lastName: 'Smith', position: 'CTO' },
    ...overrides,
  };
}

export const page = <T>(data: T[], total = data.length, offset = 0, limit = 100) => ({
  data,
  total,
  offset,
  limit,
});
