/**
 * `roster users invite`: creates a user and (with an email, unless --no-send-mail) sends the
 * invitation. On a terminal it asks for what is missing; every value is checked with the
 * contract's schemas before the request.
 */
import type { Command } from 'commander';
import { type UserFieldName, userField } from '../../../contract/user-fields.js';
import { type Deps, type GlobalOptions, interactive, note } from '../../context.js';
import { usageError } from '../../errors.js';
import { renderRecord } from '../../output/render.js';
import { prompterOf } from '../../prompt.js';
import { collect, fieldsOption, globalsOf } from '../shared/options.js';
import { describeUser, userView } from './format.js';
import { applySets, type Body, putField } from './patch.js';
import { ensureRequired } from './required.js';
import { SECRET_HELP, secretOf } from './secret.js';
import { validateUserBody } from './validate.js';

export interface InviteOptions {
  email?: string;
  userName?: string;
  externalId?: string;
  firstName?: string;
  lastName?: string;
  role?: string;
  locale?: string;
  /** A password; `-` reads it from stdin; `true` (the flag alone) asks on a terminal. */
  secret?: string | true;
  sendMail: boolean;
  set?: string[];
  fields?: string;
  globals: GlobalOptions;
}

/** The user fields this command has a flag of its own for: `--first-name` sets firstName. */
const FLAGGED = [
  'email',
  'userName',
  'externalId',
  'firstName',
  'lastName',
  'role',
  'locale',
  'secret',
] as const satisfies readonly UserFieldName[];

const flagName = (field: string) => `--${field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** The flag each body path comes from, for messages. */
const FLAGS: ReadonlyMap<string, string> = new Map(
  FLAGGED.map((name) => [userField(name)!.body, flagName(name)]),
);
export const flagOf = (field: string) => FLAGS.get(field) ?? `--set ${field}`;

export function register(users: Command, deps: Deps, runFn = runInvite) {
  fieldsOption(
    users
      .command('invite')
      .description('create a user and send the invitation mail (JSON: the created v3 user)')
      .option('--email <address>', 'email address (this or --user-name is required)')
      .option('--user-name <name>', 'user name for signing in')
      .option('--external-id <id>', 'your own id for the user (e.g. from HR)')
      .option('--first-name <name>', 'first name')
      .option('--last-name <name>', 'last name')
      .option('--role <role>', 'admin, editor, moderator, reader or restricted')
      .option('--locale <xx_YY>', 'language and region, e.g. de_DE')
      .option(
        '--secret [password]',
        `initial password, the user is activated at once: ${SECRET_HELP}`,
      )
      .option('--no-send-mail', 'do not send the invitation mail')
      .option(
        '--set <key=value>',
        'any other field, e.g. profile.position=CTO (repeatable)',
        collect,
      ),
  )
    .addHelpText(
      'after',
      "\nOn a terminal, a missing --email/--user-name is asked for. Where the service requires a role\nand locale (the real platform), the profile's defaults fill them (`roster profiles set`);\nwithout those they are asked for on a terminal, and are an error elsewhere.",
    )
    .action((opts: Omit<InviteOptions, 'globals'>, cmd: Command) =>
      runFn({ ...opts, globals: globalsOf(cmd) }, deps),
    );
}

/** The v3 create body from the flags (only what was given). */
export function inviteBody(opts: InviteOptions): Body {
  const body: Body = {};
  for (const name of FLAGGED) {
    const value = opts[name];
    if (typeof value === 'string') putField(body, name, value, flagName(name));
  }
  if (opts.sendMail === false) body.sendMail = false;
  return applySets(body, opts.set);
}

/** On a terminal, asks for the address and name when neither --email nor --user-name was given. */
async function askMissing(opts: InviteOptions, deps: Deps): Promise<InviteOptions> {
  if (opts.email !== undefined || opts.userName !== undefined || !interactive(deps.io)) {
    return opts;
  }
  const { emailSchema } = await import('../../../contract/schemas.js');
  const prompter = prompterOf(deps);
  const email = await prompter.input({
    message: 'Email address',
    required: true,
    validate: (v) => emailSchema.safeParse(v.trim()).success || 'not a valid email address',
  });
  const optional = async (message: string, given?: string) =>
    given ?? ((await prompter.input({ message: `${message} (optional)` })).trim() || undefined);
  return {
    ...opts,
    email: email.trim(),
    firstName: await optional('First name', opts.firstName),
    lastName: await optional('Last name', opts.lastName),
  };
}

export async function runInvite(options: InviteOptions, deps: Deps): Promise<void> {
  const view = userView(options.globals, options.fields, deps);
  const secret = await secretOf(options.secret, deps);
  const opts = await askMissing({ ...options, secret }, deps);
  const body = inviteBody(opts);
  if (body.email === undefined && body.userName === undefined) {
    throw usageError('--email or --user-name is required');
  }
  await validateUserBody('create', body, flagOf);

  const { apiClient } = await import('../../client.js');
  const client = await apiClient(opts.globals, deps);
  const config = body.config as Body | undefined;
  await ensureRequired(
    client,
    { role: body.role != null, locale: config?.locale != null },
    deps,
    opts.globals.profile,
  );
  const { user } = await client.createUser(body);
  const mailed = user.email && opts.sendMail !== false ? '; invitation queued' : '';
  note(deps.io, `created ${describeUser(user)} (${user.id}, ${user.status})${mailed}`);
  await renderRecord(deps.io, view, user);
}
