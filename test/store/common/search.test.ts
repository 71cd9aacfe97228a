/**
 * The fold and the words SQLite keeps in each user's row (common/search.ts): the rule itself is
 * test/store/search-semantics.test.ts's, on both backends; these pin its JavaScript form.
 */
import { expect, test } from 'vitest';
import { entryProbes, fold, searchEntry } from '../../../src/store/common/search.js';

test('fold: case, marks, compatibility forms and the spelled-out letters; plain ASCII by case alone', () => {
  expect(fold('Müller-Straße')).toBe('muller-strasse');
  expect(fold('Søren Æbelø Łódź İlkay Işık Đặng Cœur')).toBe(
    'soren aebelo lodz ilkay isik dang coeur',
  );
  expect(fold('ﬁnn Ｗｅｉｓｓ Nº5')).toBe('finn weiss no5');
  expect(fold('ANNA.Schmidt+42@Example.COM\t')).toBe('anna.schmidt+42@example.com\t');
  expect(fold('山田 太郎')).toBe('山田 太郎');
});

test('searchEntry: every word of every value once, spaced at both ends; nothing gives one space', () => {
  expect(
    searchEntry(['Anna', 'Schmidt', 'anna.schmidt4@example.de', null, 'Anna', undefined]),
  ).toBe(' anna schmidt schmidt4 example de ');
  expect(searchEntry([null, '', '-- ..'])).toBe(' ');
  // A query's word is a prefix of an entry's word exactly when ' ' + it is in the entry.
  const entry = searchEntry(['Jörg', 'Weiß']);
  expect(entryProbes('Wei jo').every((p) => entry.includes(p))).toBe(true);
  expect(entryProbes('eiss').some((p) => entry.includes(p))).toBe(false);
});
