// The floor for the users bench's writes: a bare Koa handler making, per request, the credentials
// check (one statement, as bare-koa-reads.mjs) and the write a create or an update makes,
// through the store itself (the same rows, triggers and transaction: `users.insert`, or
// `users.update` of the field the bench changes with the version and time a write sets). It
// reads and parses the JSON body and answers the JSON it was given; no auth, routing,
// negotiation, validation or representation. Arguments: the JSON, the data dir, a database
// (`sqlite:<dir>` or a postgres:// URL) and the branch id the bench seeded.
import Koa from 'koa';

const ROOT = new URL('..', import.meta.url).pathname;
const [json, dataDir, database, branch] = process.argv.slice(2);
const answer = JSON.parse(json);
const branchId = Number(branch);
const { databaseTarget, openStore } = await import(`${ROOT}dist/store/open.js`);
const { emptyUserRow } = await import(`${ROOT}dist/store/types.js`);
const { newObjectId } = await import(`${ROOT}dist/store/ids.js`);
const store = await openStore({ dataDir, target: databaseTarget(database, dataDir) });
const tenant = await store.tenants.byHost('*');

/** The credentials check, one statement a request, on the store's own connection. */
async function checker() {
  if (store.engine === 'sqlite') {
    const { sqliteHandle } = await import(`${ROOT}dist/store/sqlite/handle.js`);
    const version = sqliteHandle(store).prepare('PRAGMA data_version').pluck();
    return async () => version.get();
  }
  const { postgresHandle } = await import(`${ROOT}dist/store/postgres/handle.js`);
  const pool = postgresHandle(store);
  return () => pool.query({ name: 'epoch', text: 'SELECT value FROM credentials_epoch' });
}
const check = await checker();

const bodyOf = async (req) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
};

const app = new Koa();
app.use(async (ctx) => {
  await check();
  const body = await bodyOf(ctx.req);
  const now = new Date().toISOString();
  if (ctx.method === 'POST') {
    await store.users.insert({
      ...emptyUserRow({
        id: newObjectId(),
        tenant_id: tenant.id,
        branch_id: branchId,
        created_at: now,
      }),
      email: body.email,
      email_norm: body.email.toLowerCase(),
      external_id: body.externalId,
      first_name: body.profile.firstName,
      last_name: body.profile.lastName,
      custom: '{}',
    });
    ctx.status = 201;
  } else {
    const key = ctx.path.slice(ctx.path.lastIndexOf('/') + 1);
    const row = await store.users.update(branchId, key, (current) => ({
      position: body.profile.position,
      updated_at: now,
      version: current.version + 1,
    }));
    if (!row) return;
  }
  ctx.body = answer;
});
const server = app.listen(0, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
process.on('SIGTERM', () => server.close(() => store.close().then(() => process.exit(0))));
