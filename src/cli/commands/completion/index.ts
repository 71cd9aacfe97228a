/** `roster completion bash|zsh|fish`: prints a completion script for the shell. */
import { Argument, type Command } from 'commander';
import type { Deps } from '../../context.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

export function register(program: Command, deps: Deps) {
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
    .action(async (shell: (typeof SHELLS)[number]) => {
      const { treeOf, bashScript, zshScript, fishScript } = await import('./scripts.js');
      const tree = treeOf(program);
      const script = { bash: bashScript, zsh: zshScript, fish: fishScript }[shell](tree);
      deps.io.stdout.write(script);
    });
}
