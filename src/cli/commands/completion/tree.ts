/** The commander tree as plain data for the completion scripts, and pieces they share. */
import type { Command } from 'commander';
import { RAW_METHODS } from '../../../client/raw.js';
import { LISTABLE_STATUSES, ROLES } from '../../../contract/user.js';

/**
 * Values of flags that a parser checks rather than commander's `choices` (so they are not in
 * the tree by themselves): what completion offers after them.
 */
const FLAG_VALUES: Record<string, readonly string[]> = {
  '--status': [...LISTABLE_STATUSES, 'all'],
  '--role': ROLES,
  '--match': ['externalId', 'email'],
  '--encoding': ['utf-8', 'windows-1252', 'macintosh', 'latin1', 'utf-16le'],
  '--method': RAW_METHODS,
};

export interface Opt {
  flags: string[];
  description: string;
  takesValue: boolean;
  choices?: string[];
}

export interface Node {
  /** Subcommand names from the root, e.g. ['users', 'list']; [] for the program. */
  path: string[];
  description: string;
  subcommands: Node[];
  options: Opt[];
}

export const HELP: Opt = {
  flags: ['-h', '--help'],
  description: 'display help',
  takesValue: false,
};

export function treeOf(cmd: Command, path: string[] = []): Node {
  return {
    path,
    description: cmd.description(),
    subcommands: cmd.commands
      .filter((c) => c.name() !== 'help')
      .map((c) => treeOf(c, [...path, c.name()])),
    options: [
      ...cmd.options
        .filter((o) => !o.hidden)
        .map((o) => ({
          flags: [o.short, o.long].filter((f): f is string => Boolean(f)),
          description: o.description,
          takesValue: o.required || o.optional,
          choices: o.argChoices ?? (o.long ? FLAG_VALUES[o.long]?.slice() : undefined),
        })),
      HELP,
    ],
  };
}

export const all = (n: Node): Node[] => [n, ...n.subcommands.flatMap(all)];
export const key = (n: Node) => n.path.join(' ');
export const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
export const names = (n: Node) => n.subcommands.map((s) => s.path.at(-1)!);

/** Options whose next word is a value, and the choices of those that have them. */
export function valueOptions(root: Node) {
  const takes = new Set<string>();
  const choices = new Map<string, string[]>();
  for (const n of all(root)) {
    for (const o of n.options.filter((x) => x.takesValue)) {
      for (const f of o.flags) {
        takes.add(f);
        if (o.choices) choices.set(f, o.choices);
      }
    }
  }
  return { takes: [...takes], choices };
}

/** The shell loop that walks the words typed so far to the current command path. */
export const walk = (
  from: string,
  subs: string,
  takes: string[],
) => `  local cmdpath="" word i skip=0
  for ((i = ${from}; i < ${subs}; i++)); do
    word="\${words_[i]}"
    if ((skip)); then skip=0; continue; fi
    case "$word" in
      ${takes.join('|')}) skip=1; continue ;;
      -*) continue ;;
    esac
    case " $(_roster_subs "$cmdpath") " in
      *" $word "*) cmdpath="\${cmdpath:+$cmdpath }$word" ;;
    esac
  done`;
