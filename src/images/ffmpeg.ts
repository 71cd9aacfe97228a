/**
 * Runs ffmpeg/ffprobe (from PATH, or FFMPEG_PATH / FFPROBE_PATH) on untrusted files: local files
 * only (`file:` paths, `-protocol_whitelist file`), a whitelist of demuxers per caller, no
 * stdin, killed at the deadline.
 */
import { execFile } from 'node:child_process';
import { resolve as absolute } from 'node:path';

const binary = (name: 'ffmpeg' | 'ffprobe') =>
  process.env[name === 'ffmpeg' ? 'FFMPEG_PATH' : 'FFPROBE_PATH'] || name;

export function runFfmpeg(
  name: 'ffmpeg' | 'ffprobe',
  args: string[],
  timeoutMs: number,
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      binary(name),
      args,
      { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 4 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err)
          reject(new Error(`${name} failed: ${stderr.trim().split('\n').at(-1) ?? err.message}`));
        else resolve(stdout);
      },
    );
  });
}

/** The input options that keep ffmpeg to one local file read by the named demuxers. */
export const safeInput = (demuxers: string) => [
  '-protocol_whitelist',
  'file',
  '-format_whitelist',
  demuxers,
];

/** `file:` so that no part of a path can ever be read as a protocol or an option. */
export const fileArg = (path: string) => `file:${absolute(path)}`;
