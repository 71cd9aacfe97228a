import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  hasFormatChars,
  IDENTITY_FIELDS,
  identityKey,
  sameIdentity,
} from '../../src/contract/identity.js';

describe('identityKey', () => {
  it('externalId is case-exact, email and userName ignore case; all compare in NFC', () => {
    expect(identityKey('externalId', 'E-1')).toBe('E-1');
    expect(sameIdentity('externalId', 'E-1', 'e-1')).toBe(false);
    expect(identityKey('email', 'Ann@Example.COM')).toBe('ann@example.com');
    expect(sameIdentity('userName', 'Zoe\u0308', 'ZOË')).toBe(true);
    expect(sameIdentity('externalId', 'Zoe\u0308', 'Zoë')).toBe(true);
  });

  it('email and userName compare in NFKC: fullwidth letters and ligatures are the letters they show', () => {
    expect(sameIdentity('userName', 'ａｎｎ', 'ann')).toBe(true);
    expect(sameIdentity('userName', 'ＡＮＮ', 'ann')).toBe(true);
    expect(sameIdentity('email', 'ａnn@x.example', 'ann@x.example')).toBe(true);
    expect(sameIdentity('userName', 'ﬁona', 'fiona')).toBe(true);
    // externalId is the provider's key, case-exact and NFC only (SCIM caseExact).
    expect(sameIdentity('externalId', 'ａ1', 'a1')).toBe(false);
  });

  it('format characters (zero-width space, joiners, bidi marks) are found, for refusal', () => {
    for (const cf of ['\u200b', '\u200d', '\u2060', '\ufeff', '\u202e', '\u00ad']) {
      expect(hasFormatChars(`an${cf}n`), JSON.stringify(cf)).toBe(true);
    }
    expect(hasFormatChars('Zoë ann')).toBe(false);
  });

  it('is NFC for externalId, NFKC lower-cased for email and userName, for any string (property)', () => {
    const text = fc.string({
      unit: fc.constantFrom(
        'a',
        'E',
        '-',
        ' ',
        '~',
        '\u0000',
        '\u007f',
        'é',
        'e',
        '\u0301',
        'Å',
        'ﬁ',
      ),
    });
    fc.assert(
      fc.property(fc.constantFrom(...IDENTITY_FIELDS), text, (field, value) => {
        expect(identityKey(field, value)).toBe(
          field === 'externalId' ? value.normalize('NFC') : value.normalize('NFKC').toLowerCase(),
        );
      }),
      { numRuns: 1000 },
    );
  });
});
