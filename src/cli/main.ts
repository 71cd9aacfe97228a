/**
 * Builds the program and runs it. The only place that turns errors into exit codes and
 * one-line messages; commands throw, they never exit.
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { type Deps, note, processIO } from './context.js';
import { CliError, EXIT, type ExitCode } from './errors.js';
import { FORMATS } from './output/render.js';

const COMMANDS = [
  () => import('./commands/serve.js'),
  () => import('./commands/tokens.js'),
  () => import('./commands/tenants.js'),
  () => import('./commands/branches.js'),
];

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  return pkg.version as string;
}

export async function buildProgram(deps: Deps): Promise<Command> {
  const program = new Command('roster')
    .description(
      'Administer the users and media of an employee-app platform, or run the service itself.',
    )
    .version(version(), '-V, --version')
    .addOption(
      new Option(
        '-o, --output <format>',
        'output format (default: table on a terminal, json when piped)',
      ).choices(FORMATS),
    )
    .option('--profile <name>', 'CLI profile to use (default: $ROSTER_PROFILE or the current one)')
    .option('--base-url <url>', 'service base URL ending in /api (default: from the profile)')
    .option('--region <region>', "'de' uses the profile's German base URL")
    .option('--verbose', 'trace HTTP requests on stderr (token redacted), stacks on errors')
    .option('--no-color', 'no colours (also: NO_COLOR)')
    .option('-y, --yes', 'answer yes to confirmations (needed when not on a terminal)')
    .showHelpAfterError('(run with --help for usage)')
    .showSuggestionAfterError()
    .exitOverride()
    .configureOutput({
      writeOut: (s) => deps.io.stdout.write(s),
      writeErr: (s) => deps.io.stderr.write(s),
    });
  for (const load of COMMANDS) (await load()).register(program, deps);
  for (const cmd of program.commands) cmd.exitOverride();
  program.hook('preAction', (_cmd, action) => {
    if (action.optsWithGlobals().color === false) deps.io.color = false;
  });
  return program;
}

/** The exit code of a failure, and prints what the user needs to read. */
export function reportError(err: unknown, deps: Deps, verbose: boolean): ExitCode {
  if (err instanceof CommanderError) {
    if (
      err.code === 'commander.helpDisplayed' ||
      err.code === 'commander.version' ||
      err.code === 'commander.help'
    ) {
      return EXIT.ok;
    }
    return EXIT.usage; // commander has already printed the message and the hint
  }
  if (err instanceof CliError) {
    note(deps.io, `error: ${err.message}`);
    return err.exitCode;
  }
  const e = err as Error;
  note(deps.io, `error: ${e?.message ?? String(err)}`);
  if (verbose && e?.stack) note(deps.io, e.stack);
  else note(deps.io, '(run with --verbose for details)');
  return EXIT.error;
}

export async function main(argv: string[], deps: Deps = { io: processIO(), env: process.env }) {
  const verbose = argv.includes('--verbose');
  let code: ExitCode = EXIT.ok;
  try {
    const program = await buildProgram(deps);
    await program.parseAsync(argv);
  } catch (err) {
    code = reportError(err, deps, verbose);
  }
  process.exitCode = code;
  return code;
}
