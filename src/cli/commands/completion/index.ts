/** `roster completion bash|zsh|fish`: prints a completion script for the shell. */
import { Argument, type Command } from 'commander';
import type { Deps } from '../../context.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

export interface CompletionOptions {
  shell: (typeof SHELLS)[number];
  /** The whole command tree the script completes. */
  program: Command;
}

export function register(program: Command, deps: Deps, runFn = runCompletion) {
  program
    .command('completion')
    .description('print a shell completion script')
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .addHelpText(
      'after',
      `
  bash: source <(roster completion bash)     (or save it in your bash-completion dir)
  zsh:  source <(roster completion zsh)      (or save it as _roster in your $fpath)
  fish: roster completion fish | source      (or save it in ~/.config/fish/completions)`,
    )
    .action((shell: (typeof SHELLS)[number]) => runFn({ shell, program }, deps));
}

export async function runCompletion(opts: CompletionOptions, deps: Deps): Promise<void> {
  const { treeOf, bashScript, zshScript, fishScript } = await import('./scripts.js');
  const tree = treeOf(opts.program);
  const script = { bash: bashScript, zsh: zshScript, fish: fishScript }[opts.shell](tree);
  deps.io.stdout.write(script);
}
