/**
 * Role and locale of new users where the service requires them (the real platform creates
 * users as user-invite.v2): from the command's input, else the profile's defaults, else asked
 * on a terminal; not on one, a usage error saying how to give them.
 */
import type { ApiClient, UserDefaults } from '../../../client/index.js';
import { fieldAt } from '../../../contract/user-fields.js';
import { shellWord } from '../../../import/shell-word.js';
import { type Deps, interactive } from '../../context.js';
import { usageError } from '../../errors.js';
import { prompterOf } from '../../prompt.js';

/**
 * Makes sure the client can fill what the service requires and the input lacks (`given`: the
 * fields every new user of this command carries already). Asked values go into the client's
 * defaults for the rest of the command.
 */
export async function ensureRequired(
  client: ApiClient,
  given: { role: boolean; locale: boolean },
  deps: Deps,
  /** The profile --profile named: the advice names it too (else it would set the current one). */
  profile?: string,
): Promise<void> {
  const requires = await client.createRequires();
  const defaults = client.userDefaults;
  const missing = requires
    .map((path) => fieldAt(path))
    .filter((key): key is keyof UserDefaults => key === 'role' || key === 'locale')
    .filter((key) => !given[key] && !defaults[key]);
  if (missing.length === 0) return;
  if (!interactive(deps.io)) {
    const flags = missing.map((k) => `--${k}`).join(' and ');
    throw usageError(
      `the service requires a ${missing.join(' and a ')} for new users: pass ${flags}, or set the profile's defaults with \`roster profiles set ${profile === undefined ? '' : `${shellWord(profile)} `}${missing.map((k) => `--${k} ${k === 'role' ? 'reader' : 'de_DE'}`).join(' ')}\``,
    );
  }
  const { localeSchema, roleSchema } = await import('../../../contract/schemas.js');
  const { ROLES } = await import('../../../contract/user.js');
  const prompter = prompterOf(deps);
  if (missing.includes('role')) {
    defaults.role = await prompter.select({
      message: 'Role of new users (the service requires one)',
      choices: ROLES.map((value) => ({ value })),
      default: 'reader',
    });
    roleSchema.parse(defaults.role);
  }
  if (missing.includes('locale')) {
    defaults.locale = (
      await prompter.input({
        message: 'Locale of new users, xx_YY (the service requires one)',
        required: true,
        validate: (v) => localeSchema.safeParse(v.trim()).success || 'must look like de_DE',
      })
    ).trim();
  }
}
