/**
 * "This process has just committed an event": what wakes a long poll (`wait=`) at once. Other
 * replicas' writes are found by the poll's own re-query (server/events); this is only the fast
 * path for the process's own.
 */
export interface Notifier {
  notify(): void;
  subscribe(listener: () => void): () => void;
}

export function createNotifier(): Notifier {
  const listeners = new Set<() => void>();
  return {
    notify() {
      for (const l of [...listeners]) l();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
