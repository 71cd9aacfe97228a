// Module hooks that add one profile field to the built service and CLI the way a developer
// would: a row in the user-field table and a migration declared once (both backends), nothing else.
const ROW = `{
  name: 'costCenter',
  flat: 'costCenter',
  body: 'profile.costCenter',
  read: 'profile.costCenter',
  column: 'cost_center',
  aliases: ['kostenstelle'],
}, `;
const MIGRATION = `
MIGRATIONS.push({ why: 'cost centres', steps: [addColumn('users', 'cost_center', { type: 'text' })] });
`;

export function edit(url, source) {
  if (url.endsWith('/dist/contract/user-fields.js')) {
    // Before the write-only rows, where a profile field goes.
    const at = source.search(/\{\s*name: 'secret'/);
    if (at < 0) throw new Error(`add-a-field: the user-field table's shape changed (${url})`);
    return source.slice(0, at) + ROW + source.slice(at);
  }
  if (url.endsWith('/dist/store/migrations/list.js')) {
    if (!source.includes('export const MIGRATIONS') || !source.includes('addColumn')) {
      throw new Error(`add-a-field: the declared migrations' shape changed (${url})`);
    }
    return source + MIGRATION;
  }
  return undefined;
}

function edited(url, loaded) {
  if (loaded.source === undefined || loaded.source === null) return loaded;
  const source = edit(url, String(loaded.source));
  return source === undefined ? loaded : { ...loaded, source };
}

/** For module.registerHooks (Node >= 22.15), where hooks run in the loading thread. */
export function loadSync(url, context, next) {
  return edited(url, next(url, context));
}

/** For module.register (Node 20), deprecated from Node 26 on (DEP0205). */
export async function load(url, context, next) {
  return edited(url, await next(url, context));
}
