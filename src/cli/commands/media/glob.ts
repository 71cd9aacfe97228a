/**
 * Glob patterns expanded by Roster itself, so `roster media upload 'photos/*.png'` behaves the
 * same in bash, zsh, fish, PowerShell and cmd (Node 20 has no stable fs.glob). Supported:
 * `*` `?` `[abc]` `[a-z]` `[!x]` within a path segment, `**` for any depth of directories,
 * `{a,b}` alternatives, `\` to escape (POSIX only; on Windows `\` separates directories).
 * As in shells, wildcards do not match a leading `.` unless the pattern spells it, and `**`
 * does not descend into hidden or symlinked directories (no cycles). A pattern matches files
 * only: a directory it meets is walked, not uploaded.
 */
import type { Dirent } from 'node:fs';
import { lstat, readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';

const WINDOWS = process.platform === 'win32';

/** Whether `arg` has an unescaped wildcard, class or brace. */
export function hasMagic(arg: string): boolean {
  return /[*?[{]/.test(WINDOWS ? arg : arg.replace(/\\./g, ''));
}

/** `a{b,c}d{e,f}` → abde abdf acde acdf; a brace without a top-level comma stays literal. */
export function expandBraces(pattern: string): string[] {
  const group = firstAlternatives(pattern);
  if (!group) return [pattern];
  const head = pattern.slice(0, group.open);
  const tail = pattern.slice(group.close + 1);
  const cuts = [group.open, ...group.commas, group.close];
  return cuts
    .slice(0, -1)
    .flatMap((at, k) => expandBraces(head + pattern.slice(at + 1, cuts[k + 1]) + tail));
}

interface BraceGroup {
  open: number;
  /** Its top-level commas. */
  commas: number[];
  close: number;
}

/** The first unescaped brace group that has alternatives (a top-level comma), if any. */
function firstAlternatives(pattern: string): BraceGroup | undefined {
  for (let open = 0; open < pattern.length; open++) {
    if (pattern[open] === '\\' && !WINDOWS) open++;
    else if (pattern[open] === '{') {
      const group = braceGroup(pattern, open);
      if (group && group.commas.length > 0) return group;
    }
  }
  return undefined;
}

/** The group the brace at `open` opens, up to its matching `}`; undefined when none closes it. */
function braceGroup(pattern: string, open: number): BraceGroup | undefined {
  let depth = 0;
  const commas: number[] = [];
  for (let i = open; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\' && !WINDOWS) i++;
    else if (c === '{') depth++;
    else if (c === ',' && depth === 1) commas.push(i);
    else if (c === '}' && --depth === 0) return { open, commas, close: i };
  }
  return undefined;
}

/** One path segment as an anchored regular expression. */
export function segmentRegExp(segment: string): RegExp {
  let re = '';
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i]!;
    if (c === '\\' && !WINDOWS && i + 1 < segment.length) re += quoteChar(segment[++i]!);
    else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const close = segment.indexOf(']', i + 2);
      if (close < 0) re += '\\[';
      else {
        let body = segment.slice(i + 1, close);
        const negate = body[0] === '!' || body[0] === '^';
        if (negate) body = body.slice(1);
        re += `[${negate ? '^' : ''}${body.replace(/[\\\]^]/g, '\\$&')}]`;
        i = close;
      }
    } else re += quoteChar(c);
  }
  // Wildcards never match a leading dot unless the pattern starts with one (shell rule).
  const hidden = segment.startsWith('.') ? '' : '(?!\\.)';
  return new RegExp(`^${hidden}${re}$`, WINDOWS ? 'i' : '');
}

const quoteChar = (c: string) => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** The literal text of a segment without wildcards (escapes removed). */
const literal = (segment: string) => (WINDOWS ? segment : segment.replace(/\\(.)/g, '$1'));

/** Walks `segments` from `dir` (as the user would write it: '' is the working directory). */
class Walker {
  readonly found: string[] = [];
  constructor(private readonly cwd: string) {}

  private fsPath = (p: string) => resolve(this.cwd, p || '.');

  private async entries(dir: string): Promise<Dirent[]> {
    try {
      return await readdir(this.fsPath(dir), { withFileTypes: true });
    } catch {
      return []; // unreadable or vanished: nothing matches there, as in shells
    }
  }

  /** Whether `path` is a directory, following symlinks; undefined when it does not exist. */
  private async isDir(path: string): Promise<boolean | undefined> {
    try {
      return (await stat(this.fsPath(path))).isDirectory();
    } catch {
      return undefined;
    }
  }

  async walk(dir: string, segments: string[]): Promise<void> {
    const [segment, ...rest] = segments;
    if (segment === undefined) return;
    const last = rest.length === 0;
    if (segment === '**') {
      // `**` at the end means every file below; elsewhere zero or more directories.
      await this.walk(dir, last ? ['*'] : rest);
      for (const e of await this.entries(dir)) {
        if (e.isDirectory() && !e.name.startsWith('.'))
          await this.walk(join(dir, e.name), segments);
      }
      return;
    }
    if (!hasMagic(segment)) {
      const path = join(dir, literal(segment));
      const directory = await this.isDir(path);
      if (directory === undefined) return;
      if (last && !directory) this.found.push(path);
      else if (!last && directory) await this.walk(path, rest);
      return;
    }
    const re = segmentRegExp(segment);
    const matches = (await this.entries(dir)).filter((e) => re.test(e.name));
    for (const e of matches.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const path = join(dir, e.name);
      const directory = e.isDirectory() || (e.isSymbolicLink() && (await this.isDir(path)));
      if (last && !directory) this.found.push(path);
      else if (!last && directory) await this.walk(path, rest);
    }
  }
}

/** The files one pattern matches, in path order; relative patterns give relative paths. */
export async function glob(pattern: string, cwd = process.cwd()): Promise<string[]> {
  const walker = new Walker(cwd);
  for (const alternative of expandBraces(pattern)) {
    const normalised = WINDOWS ? alternative.replace(/\\/g, '/') : alternative;
    const absolute = normalised.startsWith('/') || /^[a-z]:\//i.test(normalised);
    const segments = normalised.split('/').filter((s, i) => s !== '' || i === 0);
    const root = absolute ? `${segments.shift()}/` : '';
    await walker.walk(root, segments);
  }
  return [...new Set(walker.found)];
}

export interface Expansion {
  /** The argument as given. */
  arg: string;
  /** The files it names: itself when it has no wildcard or exists as written. */
  paths: string[];
}

/**
 * Expands file arguments: a plain path stays as it is (checked later, so a missing file is
 * reported by name), a pattern becomes the files it matches. `unmatched` lists the patterns
 * that matched nothing.
 */
export async function expandArgs(
  args: string[],
  cwd = process.cwd(),
): Promise<{ expansions: Expansion[]; unmatched: string[] }> {
  const expansions: Expansion[] = [];
  const unmatched: string[] = [];
  for (const arg of args) {
    const exists = await lstat(resolve(cwd, arg)).then(
      () => true,
      () => false,
    );
    if (!hasMagic(arg) || exists) {
      expansions.push({ arg, paths: [arg] });
      continue;
    }
    const paths = await glob(arg, cwd);
    if (paths.length === 0) unmatched.push(arg);
    expansions.push({ arg, paths });
  }
  return { expansions, unmatched };
}
