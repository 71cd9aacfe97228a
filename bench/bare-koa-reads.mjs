// A floor for the users bench: a bare Koa handler that makes, per request, the reads an exact
// GET by id needs on a backend (the credentials check and the user's row), one statement each,
// and answers the same JSON. No auth, routing, negotiation or representation: whatever Roster
// costs beyond this is its HTTP layer. It is sent the same requests as Roster (path and headers)
// and reads the key from the path's last segment. Arguments: the JSON, a database
// (`sqlite:<dir>` or a postgres:// URL) and the branch id the bench seeded.
import Koa from 'koa';

const [json, database, branch] = process.argv.slice(2);
const body = JSON.parse(json);
const branchId = Number(branch);
const { VIEW_COLUMNS } = await import('../dist/store/types.js');
const FIND = `SELECT ${VIEW_COLUMNS.join(', ')} FROM users
  WHERE branch_id = $1 AND external_id = $2 AND status <> 'deleted'`;

/** `read(key)` makes both reads and tells whether the user was found. */
async function reader() {
  if (database.startsWith('sqlite:')) {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(`${database.slice('sqlite:'.length)}/roster.db`);
    db.exec('PRAGMA cache_size = -65536'); // as the store sets it
    const version = db.prepare('PRAGMA data_version').pluck();
    const find = db.prepare(FIND.replace('$1', '?').replace('$2', '?')).raw();
    return async (key) => {
      version.get();
      return find.get(branchId, key) !== undefined;
    };
  }
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: database, max: 10 });
  return async (key) => {
    await pool.query({ name: 'epoch', text: 'SELECT value FROM credentials_epoch' });
    const { rows } = await pool.query({ name: 'find', text: FIND, values: [branchId, key] });
    return rows.length > 0;
  };
}

const read = await reader();
const app = new Koa();
app.use(async (ctx) => {
  if (await read(ctx.path.slice(ctx.path.lastIndexOf('/') + 1))) ctx.body = body;
});
const server = app.listen(0, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
