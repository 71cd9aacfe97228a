/**
 * Uploads files a few at a time, each streamed from disk with its own progress bar. A file's
 * failure is that file's alone; a rejected token or an unreachable service stops new uploads
 * (every other file would fail the same way: the client's `stopsRun`); the abort signal (Ctrl-C) cancels the uploads in
 * flight, so the service drops their partial files.
 */
import type { ApiClient } from '../../../client/index.js';
import type { Medium, MediumType } from '../../../contract/medium.js';
import { firstLine } from '../../errors.js';
import type { TransferBars } from '../../output/transfer.js';
import { formatBytes } from '../../output/transfer.js';

export interface UploadTask {
  /** The path as the user gave it (or as a glob produced it): how results name the file. */
  name: string;
  size: number;
}

export type Outcome = { name: string; medium: Medium } | { name: string; error: string };

export interface UploadRun {
  /** By task index; undefined for a file never started or aborted in flight. */
  outcomes: (Outcome | undefined)[];
  /** How many files started uploading. */
  started: number;
  /** Why the run stopped early: the abort reason, a rejected token, an unreachable service. */
  stopped?: unknown;
}

export interface UploadAllOptions {
  type?: MediumType;
  concurrency: number;
  signal: AbortSignal;
  bars: TransferBars;
  /** Called as each file finishes. */
  onOutcome: (outcome: Outcome) => void;
}

export async function uploadAll(
  client: ApiClient,
  tasks: UploadTask[],
  opts: UploadAllOptions,
): Promise<UploadRun> {
  const { ApiError, NetworkError, stopsRun } = await import('../../../client/errors.js');
  const { userMessage } = await import('../../advice.js');

  /** What went wrong with one file, in one line. */
  const failure = (err: unknown, task: UploadTask): string => {
    if (err instanceof ApiError && err.status === 413) {
      const size = formatBytes(task.size);
      const limit = Number(/(\d+) bytes/.exec(err.serverMessage)?.[1]);
      return limit
        ? `too large: the service accepts at most ${formatBytes(limit)} (${limit} bytes) per file; this one is ${size}`
        : `too large for the service (${err.serverMessage}); this file is ${size}`;
    }
    if (err instanceof ApiError) {
      return `${err.serverMessage} (${err.status}${err.type ? ` ${err.type}` : ''})`;
    }
    if (err instanceof NetworkError) {
      if (err.code === 'UND_ERR_REQ_CONTENT_LENGTH_MISMATCH') {
        return 'the file changed size while it was being uploaded';
      }
      const cause = err.cause as NodeJS.ErrnoException | undefined;
      if (cause?.syscall && cause.path) return `cannot read the file: ${cause.message}`;
    }
    return firstLine(userMessage(err));
  };

  const outcomes: (Outcome | undefined)[] = new Array(tasks.length);
  let next = 0;
  let stopped: unknown;
  const worker = async () => {
    while (stopped === undefined && !opts.signal.aborted && next < tasks.length) {
      const index = next++;
      const task = tasks[index]!;
      const bar = opts.bars.add(task.name, task.size);
      let outcome: Outcome;
      try {
        const medium = await client.uploadMedium({
          filePath: task.name,
          type: opts.type,
          onProgress: (sent) => bar.update(sent),
          signal: opts.signal,
        });
        outcome = { name: task.name, medium };
      } catch (err) {
        bar.remove();
        if (opts.signal.aborted) return; // interrupted: not this file's failure
        if (stopsRun(err)) stopped ??= err;
        outcome = { name: task.name, error: failure(err, task) };
      }
      bar.remove();
      outcomes[index] = outcome;
      opts.onOutcome(outcome);
    }
  };
  const workers = Math.max(1, Math.min(opts.concurrency, tasks.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return {
    outcomes,
    started: next,
    stopped: opts.signal.aborted ? opts.signal.reason : stopped,
  };
}
