/**
 * A value read from the database, shared by every caller a read can answer exactly: one that
 * was sent after the caller asked. A read already on its way when someone asks was sent before
 * they asked, and may predate a change they know of (a revocation committed before their request
 * was sent); they wait for the next read instead, which goes out as soon as that one is back. So
 * at most one read is in flight, each answers every caller that asked while the previous was
 * out, and nobody gets a value older than their own question.
 *
 * Used for the credentials epoch: under load, one round trip per batch of requests instead of
 * one per request, still exact for each.
 */
export function freshRead<T>(read: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | undefined;
  let next: Promise<T> | undefined;
  const get = (): Promise<T> => {
    if (!inFlight) {
      const sent = read();
      inFlight = sent;
      const done = () => {
        inFlight = undefined;
      };
      sent.then(done, done);
      return sent;
    }
    // Settles after `done` above (registered first), so the next read is sent by then.
    next ??= inFlight
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        next = undefined;
        return get();
      });
    return next;
  };
  return get;
}
