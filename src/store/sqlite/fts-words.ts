/**
 * A user's words as SQLite's full-text index holds them, in JavaScript: `users.words`
 * (migration 20), which a search walking its order's index checks on each row (users-list.ts
 * wordsWalk), and the query's words it checks for. They must be the index's own tokens, or a
 * page read by the walk and its count read from FTS5 would disagree: unicode61 folds case and
 * Latin diacritics by its own tables (it keeps ı, tonos, dakuten and Hangul as they are, and cuts
 * words at combining marks of Devanagari or Hebrew), so no JavaScript fold reproduces it. Each
 * character is therefore asked of unicode61 itself, once per process, in a database in memory.
 */
import Database from 'better-sqlite3';
import { SEARCH_FIELDS, searchWords, spellOut } from '../common/search.js';

/** What unicode61 makes of one character inside a word: a separator, or what it folds to. */
type Folded = string | null;

/**
 * The tokenizer's answers, learned as characters are met: a directory meets a few hundred, and
 * no input can add more than Unicode's ~150,000 (a few MB).
 */
const learned = new Map<string, Folded>();

/**
 * The index's tokenizer (schema-sql.ts usersFts) over one document in memory, kept for the
 * process's life (as every statement is: db.ts).
 */
let tokenizer: ((text: string) => string[]) | undefined;
function tokensOf(text: string): string[] {
  if (!tokenizer) {
    const db = new Database(':memory:');
    db.exec(`CREATE VIRTUAL TABLE t USING fts5 (x, tokenize = 'unicode61 remove_diacritics 2');
      CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance');`);
    const put = db.prepare('INSERT INTO t (rowid, x) VALUES (1, ?)');
    const read = db.prepare('SELECT term FROM v ORDER BY offset').pluck();
    const clear = db.prepare('DELETE FROM t');
    tokenizer = (text) => {
      put.run(text);
      const terms = read.all() as string[];
      clear.run();
      return terms;
    };
  }
  return tokenizer(text);
}

/**
 * unicode61's answer for `c` between two letters: one token `a…b` holds its fold (empty for a
 * diacritic it drops), two tokens mean it separates.
 */
function foldOf(c: string): Folded {
  let folded = learned.get(c);
  if (folded === undefined) {
    const tokens = tokensOf(`a${c}b`);
    folded = tokens.length === 1 ? tokens[0]!.slice(1, -1) : null;
    learned.set(c, folded);
  }
  return folded;
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
    const folded = foldOf(c);
    if (folded === null) {
      if (word) words.push(word);
      word = '';
    } else word += folded;
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
