/**
 * A user's words as SQLite's full-text index holds them, in JavaScript: `users.words`
 * (migration 20), which a search walking its order's index checks on each row (users-list.ts
 * wordsWalk), and the query's words it checks for. They must be the index's own tokens, or a
 * page read by the walk and its count read from FTS5 would disagree: unicode61 folds case and
 * Latin diacritics by its own tables (it keeps ı, tonos, dakuten and Hangul as they are, and cuts
 * words at combining marks of Devanagari or Hebrew), so no JavaScript fold reproduces it. Each
 * code point is therefore asked of unicode61 itself, a block at a time once per process, in a
 * database in memory (test/store/sqlite-fts-words.test.ts compares them on random text).
 */
import Database from 'better-sqlite3';
import { SEARCH_FIELDS, searchWords, spellOut } from '../common/search.js';

/** The index's tokenizer (schema-sql.ts usersFts, from migration 11 on). */
export const FTS_TOKENIZER = 'unicode61 remove_diacritics 2';

/** What unicode61 makes of a code point inside a word: a separator, dropped, or its fold. */
const SEPARATES = -1;
const DROPPED = -2;
const UNKNOWN = -3;

/**
 * The tokenizer's answer for every code point, learned a block at a time as characters are met:
 * a fixed 4.4 MB whatever the input (a map of what was met grew with hostile input, to 112 MB
 * for every code point), and at most 4,352 questions to SQLite for all of Unicode.
 */
const folds = new Int32Array(0x110000).fill(UNKNOWN);
const BLOCK = 256;

/**
 * The tokenizer over one document in memory, kept for the process's life (as every statement
 * is: db.ts). The document is always removed again, even when reading it failed.
 */
let tokenizer: ((text: string) => string[]) | undefined;
function tokensOf(text: string): string[] {
  if (!tokenizer) {
    const db = new Database(':memory:');
    db.exec(`CREATE VIRTUAL TABLE t USING fts5 (x, tokenize = '${FTS_TOKENIZER}');
      CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance');`);
    const put = db.prepare('INSERT INTO t (rowid, x) VALUES (1, ?)');
    const read = db.prepare('SELECT term FROM v ORDER BY offset').pluck();
    const clear = db.prepare('DELETE FROM t');
    tokenizer = (text) => {
      try {
        put.run(text);
        return read.all() as string[];
      } finally {
        clear.run();
      }
    };
  }
  return tokenizer(text);
}

/**
 * Learns the block of code points around `cp`: each between two letters (`a…b`), the probes
 * apart. One token `a…b` holds its fold (one code point: unicode61 folds each to at most one; none
 * for a diacritic it drops), tokens `a` and `b` mean it separates. Surrogates alone (no
 * character) reach SQLite as U+FFFD, a separator.
 */
function learnBlock(cp: number): void {
  const first = cp - (cp % BLOCK);
  const points: number[] = [];
  for (let c = first; c < first + BLOCK; c++) {
    if (c >= 0xd800 && c <= 0xdfff) folds[c] = SEPARATES;
    else points.push(c);
  }
  const tokens = tokensOf(points.map((c) => `a${String.fromCodePoint(c)}b`).join(' '));
  let t = 0;
  for (const c of points) {
    const token = tokens[t++];
    if (token === 'a' && tokens[t] === 'b') {
      folds[c] = SEPARATES;
      t++;
    } else if (token?.startsWith('a') && token.endsWith('b') && token.length >= 2) {
      const inner = [...token.slice(1, -1)];
      folds[c] = inner.length === 0 ? DROPPED : inner[0]!.codePointAt(0)!;
      if (inner.length > 1)
        throw new Error(`unicode61 folds U+${c.toString(16)} to ${inner.length} characters`);
    } else {
      throw new Error(
        `unicode61 tokenized U+${c.toString(16)} unexpectedly: ${JSON.stringify(token)}`,
      );
    }
  }
}

/** unicode61's answer for the code point `cp` inside a word. */
function foldOf(cp: number): number {
  if (folds[cp] === UNKNOWN) learnBlock(cp);
  return folds[cp]!;
}

/** Printable ASCII: unicode61 lower-cases its letters, keeps its digits, separates at the rest. */
const BEYOND_ASCII = /[^ -~]/;

/** A text's tokens as the index makes them (after SPELLED_OUT, as the index's triggers spell). */
function wordsOf(text: string): string[] {
  const spelled = spellOut(text);
  if (!BEYOND_ASCII.test(spelled)) return spelled.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  const words: string[] = [];
  let word = '';
  for (const c of spelled) {
    const folded = foldOf(c.codePointAt(0)!);
    if (folded === SEPARATES) {
      if (word) words.push(word);
      word = '';
    } else if (folded !== DROPPED) word += String.fromCodePoint(folded);
  }
  if (word) words.push(word);
  return words;
}

/**
 * A user's entry in `users.words`: every token of SEARCH_FIELDS' values once, each with a space
 * before it and one at the end, so that "a token begins with p" is "the entry holds ' ' + p".
 * A change to how it is made needs a migration that writes every entry again; a migration that
 * changes a searched column in SQL must write its rows' entries again, or set them NULL (a walk
 * asks the index for such a row).
 */
export function searchEntry(row: Partial<Record<(typeof SEARCH_FIELDS)[number], unknown>>): string {
  const words = new Set<string>();
  for (const field of SEARCH_FIELDS) {
    const value = row[field];
    if (typeof value === 'string') for (const w of wordsOf(value)) words.add(w);
  }
  return words.size === 0 ? ' ' : ` ${[...words].join(' ')} `;
}

/**
 * A query's words as substrings of an entry, one each, all required; undefined where a word is
 * not one token (FTS5 reads such a word as a phrase, which an entry cannot answer).
 */
export function entryProbes(query: string): string[] | undefined {
  const probes: string[] = [];
  for (const word of searchWords(spellOut(query))) {
    const tokens = wordsOf(word);
    if (tokens.length !== 1) return undefined;
    probes.push(` ${tokens[0]}`);
  }
  return probes;
}
