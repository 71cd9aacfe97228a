/** Polls `check` until it holds, for work the server finishes after answering (mail, sweeps). */
export async function eventually(check: () => Promise<boolean> | boolean, ms = 5000) {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`condition not met within ${ms} ms: ${check}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
