/**
 * `users.words` must be the full-text index's own tokens (src/store/sqlite/fts-words.ts): the
 * walk reads a page from them and the count comes from FTS5. Compared here on random text in
 * many scripts, against unicode61 itself.
 */
import Database from 'better-sqlite3';
import { expect, test } from 'vitest';
import { spellOut } from '../../src/store/common/search.js';
import { entryProbes, FTS_TOKENIZER, searchEntry } from '../../src/store/sqlite/fts-words.js';

/** Characters that fold, separate, drop or pass through in unicode61, by script. */
const POOLS = [
  "abcXYZ019 -._@+'",
  'ßøØđĐłŁæÆœŒıİǄǅǆﬁﬀＡＢＣ１２Ⅻⅰŉ',
  'éèêëÉÈÊËñÑçÇåÅüÜöÖ\u0300\u0301\u0302\u0308\u0327\u0331\u0332\u0336\u034F\u1AB0\u1DC0\u20D0',
  'ΓιώργοςΚΩΣΤΑΣΐΰϐϑϕςΣσ',
  'СемёновЁЙй',
  'ガナカナｶﾞﾅゔヴ\u3099\u309A',
  '이민호인성\u1100\u1161\u11A8',
  'राम\u094D\u093Cक्ष\u19B0',
  'שָׁלוֹם\u05B0\u05BC',
  'مُحَمَّد\u064B\u0670',
  '山田太郎𠀋𠮷',
  '😀👍🏽\u200D\u200C\uFE0F',
  '\u{10400}\u{10428}\u{1D400}\u{E0041}\u{F0000}\uE000',
  '\uD800\u0000\uFFFD\u00A0\u2028\u3000\t',
  'Nº5½²³¼⁹₀',
];

/** A seeded pseudo-random generator: the same strings every run. */
function random(seed: number) {
  let x = seed;
  return (n: number) => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x % n;
  };
}

test('searchEntry gives every random text in many scripts the tokens unicode61 gives it', () => {
  const next = random(41);
  const everything = [...POOLS.join('')];
  const texts = Array.from({ length: 3000 }, () => {
    const pool = next(2) ? [...POOLS[next(POOLS.length)]!, ...POOLS[0]!] : everything;
    return Array.from({ length: 1 + next(24) }, () => pool[next(pool.length)]).join('');
  });
  const db = new Database(':memory:');
  try {
    db.exec(`CREATE VIRTUAL TABLE t USING fts5 (x, tokenize = '${FTS_TOKENIZER}');
      CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance');`);
    const insert = db.prepare('INSERT INTO t (rowid, x) VALUES (?, ?)');
    db.transaction(() => {
      for (const [i, text] of texts.entries()) insert.run(i + 1, spellOut(text));
    })();
    const indexed = texts.map(() => new Set<string>());
    for (const { doc, term } of db.prepare('SELECT doc, term FROM v').all() as {
      doc: number;
      term: string;
    }[])
      indexed[doc - 1]!.add(term);
    const differences = texts.flatMap((text, i) => {
      const entry = searchEntry({ first_name: text }).trim().split(' ').filter(Boolean).sort();
      const index = [...indexed[i]!].sort();
      return JSON.stringify(entry) === JSON.stringify(index) ? [] : [{ text, entry, index }];
    });
    expect(differences).toEqual([]);
  } finally {
    db.close();
  }
});

test('entryProbes: a query word unicode61 cuts in two is not one token, so no walk reads it', () => {
  // U+19B0 is a letter to JavaScript and a separator to unicode61 (its tables are older).
  expect(entryProbes('ab\u19B0cd')).toBeUndefined();
  expect(entryProbes('Müller Weiß')).toEqual([' muller', ' weiss']);
  expect(entryProbes('ＡＢ')).toEqual([' ａｂ']);
});
