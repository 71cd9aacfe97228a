/** A named pipe and what is written into it, for the destinations that must stay pipes. */
import { execFileSync } from 'node:child_process';
import { createReadStream } from 'node:fs';

/** Makes a FIFO at `path`; resolves with everything written into it once the writer closes. */
export function fifoReader(path: string): Promise<string> {
  execFileSync('mkfifo', [path]);
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    createReadStream(path)
      .on('data', (c) => chunks.push(c as Buffer))
      .on('end', () => resolve(Buffer.concat(chunks).toString()))
      .on('error', reject);
  });
}
