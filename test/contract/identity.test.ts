import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IDENTITY_FIELDS, identityKey, sameIdentity } from '../../src/contract/identity.js';

describe('identityKey', () => {
  it('externalId is case-exact, email and userName ignore case; all compare in NFC', () => {
    expect(identityKey('externalId', 'E-1')).toBe('E-1');
    expect(sameIdentity('externalId', 'E-1', 'e-1')).toBe(false);
    expect(identityKey('email', 'Ann@Example.COM')).toBe('ann@example.com');
    expect(sameIdentity('userName', 'Zoe\u0308', 'ZOË')).toBe(true);
    expect(sameIdentity('externalId', 'Zoe\u0308', 'Zoë')).toBe(true);
  });

  it('is NFC (lower-cased where case does not count) for any string (property)', () => {
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
        const nfc = value.normalize('NFC');
        expect(identityKey(field, value)).toBe(field === 'externalId' ? nfc : nfc.toLowerCase());
      }),
      { numRuns: 1000 },
    );
  });
});
