/** The avatar verbs' flags → options (the run functions are tested over HTTP in the other files). */
import { describe, expect, it } from 'vitest';
import * as remove from '../../../../../src/cli/commands/users/avatar/remove.js';
import * as set from '../../../../../src/cli/commands/users/avatar/set.js';
import * as show from '../../../../../src/cli/commands/users/avatar/show.js';
import * as sync from '../../../../../src/cli/commands/users/avatar/sync.js';
import { parseWith } from '../../../helpers.js';

describe('users avatar: flags → options', () => {
  it('set <user> <photo>', async () => {
    expect(
      await parseWith(set.register, ['avatar', 'set', 'E-1', 'me.heic'], 'avatar'),
    ).toMatchObject({
      user: 'E-1',
      photo: 'me.heic',
    });
  });

  it('show <user> --download DIR --force', async () => {
    const opts = await parseWith(
      show.register,
      ['avatar', 'show', 'u1', '--download', 'out', '--force'],
      'avatar',
    );
    expect(opts).toMatchObject({ user: 'u1', download: 'out', force: true });
  });

  it('remove <user> -y (a global flag, after the verb)', async () => {
    const opts = await parseWith(remove.register, ['avatar', 'rm', 'u1', '-y'], 'avatar');
    expect(opts).toMatchObject({ user: 'u1', globals: { yes: true } });
  });

  it.each([
    [[], { concurrency: 4 }],
    [
      ['--photo-name', '#localpart#', '--photo-name', 'x-#externalId#', '--concurrency', '8'],
      { photoName: ['#localpart#', 'x-#externalId#'], concurrency: 8 },
    ],
    [['--dry-run', '--report', 'r.json'], { dryRun: true, report: 'r.json' }],
  ])('sync DIR %j', async (flags, expected) => {
    const opts = await parseWith(sync.register, ['avatar', 'sync', 'photos', ...flags], 'avatar');
    expect(opts).toMatchObject({ dir: 'photos', ...expected });
  });

  it('sync --concurrency 0 is refused at parse time', async () => {
    await expect(
      parseWith(sync.register, ['avatar', 'sync', 'photos', '--concurrency', '0'], 'avatar'),
    ).rejects.toThrow(/1 to 64/);
  });
});
