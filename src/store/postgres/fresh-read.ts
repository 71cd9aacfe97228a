/**
 * Reads shared by every caller a read can answer exactly: one that was sent after the caller
 * asked. A read already on its way when someone asks was sent before they asked, and may predate
 * a change they know of (a revocation, or their own write, committed before their request was
 * sent); they wait for the next read instead, which goes out as soon as that one is back, with
 * the keys of everyone who asked meanwhile. So at most one read is in flight, each answers every
 * caller that asked while the previous was out, and nobody gets a value older than their own
 * question. (The DataLoader pattern, with freshness as the rule for what may be shared.)
 *
 * Under load: one round trip per batch of requests instead of one per request. (Measured on
 * GET by id with 16 connections: two or four reads in flight instead of one made smaller batches
 * and cost more CPU per request on both sides, for no more requests per second.)
 */
export function freshBatch<K, V>(readMany: (keys: K[]) => Promise<V[]>): (key: K) => Promise<V> {
  interface Waiting {
    key: K;
    resolve: (value: V) => void;
    reject: (err: unknown) => void;
  }
  let inFlight = false;
  let waiting: Waiting[] = [];
  const send = (batch: Waiting[]) => {
    inFlight = true;
    readMany(batch.map((w) => w.key))
      .then(
        (values) => {
          for (const [i, w] of batch.entries()) w.resolve(values[i]!);
        },
        (err: unknown) => {
          for (const w of batch) w.reject(err);
        },
      )
      .finally(() => {
        inFlight = false;
        const next = waiting;
        waiting = [];
        if (next.length > 0) send(next);
      });
  };
  return (key) =>
    new Promise<V>((resolve, reject) => {
      const w = { key, resolve, reject };
      if (inFlight) waiting.push(w);
      else send([w]);
    });
}

/** One value (the credentials epoch) read the same way. */
export function freshRead<T>(read: () => Promise<T>): () => Promise<T> {
  const get = freshBatch<null, T>(async (keys) => {
    const value = await read();
    return keys.map(() => value);
  });
  return () => get(null);
}
