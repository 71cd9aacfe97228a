/** A child's output as whole lines, for tests that wait on what a process prints. */
import type { Readable } from 'node:stream';

/** Calls `onLine` with each complete line of `stream` as it arrives (the last, unended, waits). */
export function eachLine(stream: Readable, onLine: (line: string) => void): void {
  let buffered = '';
  stream.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) onLine(line);
  });
}
