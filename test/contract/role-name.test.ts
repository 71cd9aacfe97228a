/**
 * One rule for role names (contract/user.ts roleName): any case accepted, sent lower-case,
 * whether the role comes from `users update --set`, `users invite --role` or an import's cell.
 */
import { describe, expect, it } from 'vitest';
import { applySets, putField } from '../../src/cli/commands/users/patch.js';
import { runUpdate } from '../../src/cli/commands/users/update.js';
import { ROLES, roleName } from '../../src/contract/user.js';
import { plainLayout } from '../../src/import/columns.js';
import { rowValues } from '../../src/import/fields.js';
import { fakeIO, stubClient, testDeps, user } from '../cli/helpers.js';

describe('a role written in any case is the role', () => {
  it.each(['Editor', 'EDITOR', 'editor'])('%s', (typed) => {
    expect(roleName(typed)).toBe('editor');
    expect(applySets({}, [`role=${typed}`])).toEqual({ role: 'editor' });
    expect(putField({}, 'role', typed, '--role')).toEqual({ role: 'editor' });
    expect(rowValues([typed], plainLayout(['role']), false)).toEqual({ role: 'editor' });
  });

  it('every role the service knows is its own name', () => {
    for (const r of ROLES) expect(roleName(r)).toBe(r);
  });

  it('users update --set role=Editor sends editor (it was refused, while the import took it)', async () => {
    const fake = fakeIO();
    const stub = stubClient({ updateUser: async () => user({ role: 'editor' }) });
    await runUpdate({ id: 'E-1', set: ['role=Editor'], globals: {} }, testDeps(fake, stub.client));
    expect(stub.calls[0]!.args).toEqual(['E-1', { role: 'editor' }]);
  });
});
