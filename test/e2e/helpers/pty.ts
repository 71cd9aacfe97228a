/**
 * The built CLI in a real pseudo-terminal: util-linux `script` gives the child a pty (so stdout,
 * stderr and stdin are terminals, spinners draw, prompts ask), and what we write to script's
 * stdin is typed at that terminal, so "\x03" is a real Ctrl-C from the line discipline.
 */
import { execa } from 'execa';
import { BIN, type Env } from '../../helpers/e2e.js';

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

export interface PtyRun {
  /** Everything the terminal showed so far. */
  screen(): string;
  /** Resolves once the screen matches. */
  waitFor(pattern: RegExp | string, ms?: number): Promise<void>;
  /** Types at the terminal. */
  type(text: string): void;
  exited: Promise<{ exitCode: number; screen: string }>;
}

/** `columns`: the terminal's width (the pty's own size, as a resized window sets it). */
export function inPty(args: string[], env: Env, { columns }: { columns?: number } = {}): PtyRun {
  const roster = [process.execPath, BIN, ...args].map(quote).join(' ');
  const command = columns ? `stty cols ${columns} rows 40 && exec ${roster}` : roster;
  const child = execa('script', ['-qfec', command, '/dev/null'], {
    env: { PATH: process.env.PATH, TERM: 'xterm', COLUMNS: '100', LINES: '40', ...env },
    extendEnv: false,
    stdin: 'pipe',
    reject: false,
    timeout: 60_000,
  });
  let screen = '';
  child.stdout!.on('data', (c: Buffer) => {
    screen += c.toString();
  });
  return {
    screen: () => screen,
    async waitFor(pattern, ms = 20_000) {
      const until = Date.now() + ms;
      const hit = () =>
        typeof pattern === 'string' ? screen.includes(pattern) : pattern.test(screen);
      while (!hit()) {
        if (Date.now() > until) throw new Error(`the terminal never showed ${pattern}:\n${screen}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    type: (text) => void child.stdin!.write(text),
    exited: child.then((r) => ({ exitCode: r.exitCode ?? -1, screen })),
  };
}
