// Baseline for the users bench: a bare Koa handler answering the same JSON, nothing else.
import Koa from 'koa';

const body = JSON.parse(process.argv[2]);
const app = new Koa();
app.use((ctx) => {
  ctx.body = body;
});
const server = app.listen(0, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
process.on('SIGTERM', () => server.close());
