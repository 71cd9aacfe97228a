/**
 * At most `n` tasks at once; the rest wait in order. Keeps preview work (sharp, pdfjs, ffmpeg)
 * from taking every core and gigabytes of memory when many uploads finish together.
 */
export function limiter(n: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async function run<T>(task: () => Promise<T>): Promise<T> {
    // A finishing task hands its slot straight to the next waiter, so `running` never overshoots.
    if (running >= n) await new Promise<void>((go) => waiting.push(go));
    else running++;
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}
