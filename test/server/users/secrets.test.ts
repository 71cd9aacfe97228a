import { describe, expect, test } from 'vitest';
import { hashSecret, SECRET_HASH_COST, verifySecret } from '../../../src/server/users/secrets.js';

describe('one-time passwords and recovery codes are stored as scrypt hashes', () => {
  test('at the default cost unless told, each hash naming its cost; a hash of either verifies', async () => {
    expect(SECRET_HASH_COST).toBe(16384);
    const strong = await hashSecret('one-time-pass');
    expect(strong).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    const cheap = await hashSecret('one-time-pass', 1024);
    expect(cheap).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect(await verifySecret('one-time-pass', strong)).toBe(true);
    expect(await verifySecret('one-time-pass', cheap)).toBe(true);
    expect(await verifySecret('one-time-pasS', cheap)).toBe(false);
    // Salted: the same secret never hashes the same twice.
    expect(await hashSecret('one-time-pass', 1024)).not.toBe(cheap);
  });

  test('a stored value that is not such a hash verifies nothing, and costs no more than the default', async () => {
    const cheap = await hashSecret('s', 1024);
    const [, , , , salt, key] = cheap.split('$');
    for (const stored of [
      '',
      'plain-text',
      `bcrypt$1024$8$1$${salt}$${key}`,
      `scrypt$1024$16$1$${salt}$${key}`,
      `scrypt$1024$8$2$${salt}$${key}`,
      `scrypt$abc$8$1$${salt}$${key}`,
      // A cost from the database is not trusted beyond the default: 2^30 would take minutes.
      `scrypt$${2 ** 30}$8$1$${salt}$${key}`,
      `scrypt$1$8$1$${salt}$${key}`,
      // scrypt itself refuses a cost that is not a power of two: no throw, just no match.
      `scrypt$1000$8$1$${salt}$${key}`,
      `scrypt$1024$8$1$$${key}`,
    ]) {
      expect(await verifySecret('s', stored), stored).toBe(false);
    }
  });
});
