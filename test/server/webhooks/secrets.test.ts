import { describe, expect, it } from 'vitest';
import { ROTATION_OVERLAP_MS } from '../../../src/contract/webhooks.js';
import {
  MAX_SIGNING_SECRETS,
  rotated,
  signingSecrets,
} from '../../../src/server/webhooks/secrets.js';

type Row = Parameters<typeof signingSecrets>[0];
const fresh: Row = {
  secret: 's0',
  previous_secret: null,
  previous_expires_at: null,
  retired_secrets: null,
};
const HOUR = 60 * 60_000;

describe('the secrets that sign an endpoint', () => {
  it('one rotated in the release before the list (previous_secret alone) signs to its end', () => {
    const legacy = {
      ...fresh,
      secret: 's1',
      previous_secret: 's0',
      previous_expires_at: 10 * HOUR,
    };
    expect(signingSecrets(legacy, 9 * HOUR)).toEqual(['s1', 's0']);
    expect(signingSecrets(legacy, 10 * HOUR)).toEqual(['s1']);
    // A rotation from there keeps it in the list, with its own end.
    const next = { ...legacy, ...rotated(legacy, 's2', 9 * HOUR) };
    expect(signingSecrets(next, 9.5 * HOUR)).toEqual(['s2', 's1', 's0']);
    expect(signingSecrets(next, 10 * HOUR)).toEqual(['s2', 's1']);
  });

  it('a rotation by a replica of the release before (previous_secret alone moved) is kept too', () => {
    const once = { ...fresh, ...rotated(fresh, 's1', 0) };
    // That replica's rotation to s2: previous_secret is s1, the list still says s0.
    const old = {
      ...once,
      secret: 's2',
      previous_secret: 's1',
      previous_expires_at: HOUR + ROTATION_OVERLAP_MS,
    };
    expect(signingSecrets(old, 2 * HOUR)).toEqual(['s2', 's1', 's0']);
  });

  it('the newest replaced one is previous_secret too, for a replica of the release before', () => {
    const once = { ...fresh, ...rotated(fresh, 's1', 0) };
    expect(once).toMatchObject({ previous_secret: 's0', previous_expires_at: ROTATION_OVERLAP_MS });
    const twice = { ...once, ...rotated(once, 's2', HOUR) };
    expect(twice).toMatchObject({
      previous_secret: 's1',
      previous_expires_at: HOUR + ROTATION_OVERLAP_MS,
    });
  });

  it(`rotated over and over in a day, the newest ${MAX_SIGNING_SECRETS} sign`, () => {
    let row: Row = { ...fresh };
    for (let i = 1; i <= 15; i++) row = { ...row, ...rotated(row, `s${i}`, i * 60_000) };
    const signing = signingSecrets(row, 16 * 60_000);
    expect(signing).toHaveLength(MAX_SIGNING_SECRETS);
    expect(signing).toEqual(Array.from({ length: MAX_SIGNING_SECRETS }, (_, i) => `s${15 - i}`));
  });
});

describe('a list that is not one (a row written by hand)', () => {
  it.each(['not json', '{}', '[{"secret": 1}]', 'null'])('%s: the endpoint signs alone', (bad) => {
    expect(signingSecrets({ ...fresh, retired_secrets: bad }, 0)).toEqual(['s0']);
  });
});
