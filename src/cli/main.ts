/**
 * Builds the program and runs it. The only place that turns errors into exit codes and
 * one-line messages; commands throw, they never exit.
 */
import { Command, CommanderError, Option } from 'commander';
import { DestinationError, destinationError } from '../files/destination.js';
import { ImportError } from '../import/errors.js';
import { addExamples } from './commands/examples.js';
import { ALL, COMMANDS, commandsFor } from './commands/index.js';
import { type Deps, note, processIO } from './context.js';
import { CliError, EXIT, type ExitCode } from './errors.js';
import { OUTPUT_CHOICES } from './output/render.js';
import { paintErr } from './output/style.js';
import { parsePositiveSeconds } from './parse.js';
import { isPromptExit } from './prompt.js';
import { exitCodeOf, installSignals } from './signals.js';
import { version } from './version.js';

const EXIT_HELP = `
Exit codes: 0 ok · 1 error · 2 usage · 3 auth (401/403, not logged in) · 4 not found ·
5 partial failure (some ids/rows failed) · 130 interrupted (Ctrl-C) · 143 terminated (SIGTERM).
Environment: ROSTER_BASE_URL, ROSTER_TOKEN, ROSTER_PROFILE, ROSTER_VENDOR, ROSTER_CONFIG_DIR,
ROSTER_DATA_DIR, ROSTER_TIMEOUT, NO_COLOR.`;

/** The program with its global options and settings, before any command is registered. */
export function createRoot(deps: Deps): Command {
  return (
    new Command('roster')
      .description(
        'Administer the users and media of an employee-app platform, or run the service itself.',
      )
      .version(version(), '-V, --version')
      .addOption(
        new Option(
          '-o, --output <format>',
          'output format (default: table on a terminal, json when piped; wide: a table not cut to the terminal; ids: one id per line, for lists)',
        ).choices(OUTPUT_CHOICES),
      )
      .option(
        '--profile <name>',
        'CLI profile to use (default: $ROSTER_PROFILE or the current one)',
      )
      .option('--base-url <url>', 'service base URL ending in /api (default: from the profile)')
      .addOption(
        new Option('--region <region>', "'de' uses the profile's German base URL").choices(['de']),
      )
      .option(
        '--timeout <seconds>',
        'how long a request may wait for the service (default: $ROSTER_TIMEOUT or 60)',
        parsePositiveSeconds,
      )
      .option('--verbose', 'trace HTTP requests on stderr (token redacted), stacks on errors')
      .option('--no-color', 'no colours (also: NO_COLOR)')
      .option('--no-headers', 'tables and CSV without their header row')
      .option('-y, --yes', 'answer yes to confirmations (needed when not on a terminal)')
      .addHelpText('after', EXIT_HELP)
      // A subcommand's --help lists the global options that apply to it too.
      .configureHelp({ showGlobalOptions: true })
      .showHelpAfterError('(run with --help for usage)')
      .showSuggestionAfterError()
      .exitOverride()
      .configureOutput({
        writeOut: (s) => deps.io.stdout.write(s),
        writeErr: (s) => deps.io.stderr.write(s),
      })
  );
}

export async function buildProgram(deps: Deps, only: string[] = ALL): Promise<Command> {
  const program = createRoot(deps);
  for (const name of only) await (await COMMANDS[name]!()).register(program, deps);
  addExamples(program);
  const override = (cmd: Command) => {
    cmd.exitOverride();
    cmd.commands.forEach(override);
  };
  override(program);
  program.hook('preAction', (_cmd, action) => {
    const globals = action.optsWithGlobals();
    if (globals.color === false) {
      deps.io.color = false;
      deps.io.stderrColor = false;
    }
    if (globals.headers === false) deps.io.headers = false;
  });
  return program;
}

/** The exit code of a failure, and prints what the user needs to read. */
export async function reportError(err: unknown, deps: Deps, verbose: boolean): Promise<ExitCode> {
  const { io } = deps;
  const error = (message: string) => note(io, `${paintErr(io, 'red', 'error:')} ${message}`);
  if (err instanceof CommanderError) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return EXIT.ok;
    // Anything else (unknown option or command, missing argument or subcommand, bad choice):
    // commander has already printed the message and the hint.
    return EXIT.usage;
  }
  if (err instanceof CliError) {
    error(err.message);
    return err.exitCode;
  }
  if (err instanceof DestinationError) {
    error(err.message);
    return EXIT.error;
  }
  if (err instanceof ImportError) {
    error(err.message);
    return err.kind === 'usage' ? EXIT.usage : EXIT.error;
  }
  if (isPromptExit(err)) {
    note(io, 'interrupted');
    return EXIT.interrupted;
  }
  // The client's errors say what went wrong, the CLI's advice what to do; the status picks the code.
  const { ApiError, ClientError, MediaAuthError } = await import('../client/errors.js');
  const { userMessage } = await import('./advice.js');
  if (err instanceof MediaAuthError) {
    error(userMessage(err));
    return EXIT.auth;
  }
  if (err instanceof ApiError) {
    error(userMessage(err));
    if (err.status === 401 || err.status === 403) return EXIT.auth;
    return err.status === 404 ? EXIT.notFound : EXIT.error;
  }
  if (err instanceof ClientError) {
    error(userMessage(err));
    // A field the service's request type requires: the person has to give it.
    if (err.name === 'RequiredFieldsError') return EXIT.usage;
    if (verbose && err.cause instanceof Error) note(io, `cause: ${err.cause.stack}`);
    return EXIT.error;
  }
  const e = err as Error;
  error(e?.message ?? String(err));
  if (verbose && e?.stack) note(io, e.stack);
  else note(io, '(run with --verbose for details)');
  return EXIT.error;
}

async function runCleanups(deps: Deps) {
  const cleanups = deps.cleanups?.splice(0) ?? [];
  for (const fn of cleanups.reverse()) {
    try {
      await fn();
    } catch {
      // Closing a pool or a spinner must not hide the command's own outcome.
    }
  }
}

/**
 * `roster help users import` as `roster users import --help`: commander's help command looks
 * one word deep, so it showed the `users` help.
 */
function helpAsFlag(argv: string[]): string[] {
  const [node = 'node', script = 'roster', first, ...words] = argv;
  if (first !== 'help' || words.length === 0 || words.some((w) => w.startsWith('-'))) return argv;
  return [node, script, ...words, '--help'];
}

/** Runs one command line (argv with node and script) and returns its exit code. */
export async function run(argv: string[], deps: Deps): Promise<ExitCode> {
  const verbose = argv.includes('--verbose');
  const removeSignals = installSignals((signal) => {
    for (const fn of deps.cleanups ?? []) {
      try {
        fn();
      } catch {}
    }
    note(deps.io, 'interrupted');
    process.exit(exitCodeOf(signal));
  });
  let code: ExitCode = EXIT.ok;
  try {
    const args = helpAsFlag(argv);
    const program = await buildProgram(deps, commandsFor(args.slice(2)));
    await program.parseAsync(args);
  } catch (err) {
    code = await reportError(err, deps, verbose);
  } finally {
    await runCleanups(deps);
    removeSignals();
  }
  return code;
}

/**
 * `roster users list | head -1`: a reader that stopped reading is not a failure of ours, so a
 * closed pipe on stdout ends the process quietly, as `head` means, instead of with an EPIPE stack
 * trace. The exit code is the command's own when it has one (a failed command piped into
 * `head` still fails), else 0. Listening for the life of the process, not only while the
 * command runs: the last write's EPIPE can arrive after the command has returned.
 */
export function closedPipeHandler(
  exit: (code: number) => void,
  decided: () => number | string | null | undefined = () => process.exitCode,
  report: (line: string) => void = (line) => process.stderr.write(line),
) {
  return (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') return exit(Number(decided() ?? EXIT.ok));
    // Any other failure of stdout (`> /dev/full`, an I/O error) is the command's failure: one
    // line that names it, not an uncaught error with a stack through the bundle.
    const known = destinationError('standard output', err);
    report(
      `error: ${known instanceof DestinationError ? known.message : `cannot write standard output: ${err.message}`}\n`,
    );
    exit(EXIT.error);
  };
}

export async function main(argv: string[], deps: Deps = { io: processIO(), env: process.env }) {
  deps.io.stdout.on(
    'error',
    closedPipeHandler((code) => process.exit(code)),
  );
  const code = await run(argv, deps);
  process.exitCode = code;
  return code;
}
