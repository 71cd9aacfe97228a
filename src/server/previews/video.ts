/**
 * Videos with ffprobe (size, rotation, duration) and ffmpeg (one frame, scaled to fit 800×800),
 * both from PATH or FFPROBE_PATH / FFMPEG_PATH; without them a video simply has no preview.
 * Hardened for untrusted files: local files only, a whitelist of container demuxers (no concat,
 * HLS or data demuxers that could reach other files or the network), no stdin, killed at the
 * deadline.
 */
import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { resolve as absolute } from 'node:path';
import sharp from 'sharp';
import { type Described, PREVIEW_MAX, previewFile } from './preview-file.js';

const DEMUXERS = 'mov,mp4,matroska,webm,avi,flv,mpegts,mpeg,ogg,asf';
const SAFE_INPUT = ['-protocol_whitelist', 'file', '-format_whitelist', DEMUXERS];

const binary = (name: 'ffmpeg' | 'ffprobe') =>
  process.env[name === 'ffmpeg' ? 'FFMPEG_PATH' : 'FFPROBE_PATH'] || name;

function run(name: 'ffmpeg' | 'ffprobe', args: string[], timeoutMs: number): Promise<string> {
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

interface Probe {
  streams?: {
    codec_type?: string;
    width?: number;
    height?: number;
    duration?: string;
    tags?: { rotate?: string };
    side_data_list?: { rotation?: number }[];
  }[];
  format?: { duration?: string };
}

/** Display size and duration from ffprobe's answer (90° rotations swap width and height). */
export function fromProbe(probe: Probe): Described {
  const video = probe.streams?.find((s) => s.codec_type === 'video');
  const described: Described = {};
  const duration = Number(probe.format?.duration ?? video?.duration);
  if (Number.isFinite(duration) && duration >= 0) described.duration = duration;
  if (video?.width && video.height) {
    const rotation = Number(
      video.side_data_list?.find((d) => d.rotation !== undefined)?.rotation ??
        video.tags?.rotate ??
        0,
    );
    const turned = Math.abs(rotation) % 180 === 90;
    described.width = turned ? video.height : video.width;
    described.height = turned ? video.width : video.height;
  }
  return described;
}

export async function describeVideo(
  path: string,
  previewPath: string,
  timeoutMs: number,
): Promise<Described> {
  const deadline = Date.now() + timeoutMs;
  // `file:` so that no part of a path can ever be read as a protocol or an option.
  const input = `file:${absolute(path)}`;
  const probe = JSON.parse(
    await run(
      'ffprobe',
      [
        '-v',
        'error',
        ...SAFE_INPUT,
        '-show_entries',
        'stream=codec_type,width,height,duration:stream_tags=rotate:stream_side_data=rotation:format=duration',
        '-of',
        'json',
        input,
      ],
      timeoutMs,
    ),
  ) as Probe;
  const described = fromProbe(probe);
  if (described.width === undefined) return described;
  // A frame a second in (past fade-ins), or from the middle of a shorter clip.
  const at = Math.min(1, (described.duration ?? 0) / 2);
  const fit = `scale=w='min(${PREVIEW_MAX},iw)':h='min(${PREVIEW_MAX},ih)':force_original_aspect_ratio=decrease`;
  try {
    await run(
      'ffmpeg',
      [
        '-nostdin',
        '-v',
        'error',
        ...SAFE_INPUT,
        '-ss',
        at.toFixed(3),
        '-i',
        input,
        '-frames:v',
        '1',
        '-vf',
        fit,
        '-f',
        'image2',
        // One file, its name taken literally (no %d patterns).
        '-update',
        '1',
        '-c:v',
        'mjpeg',
        '-q:v',
        '3',
        '-y',
        `file:${absolute(previewPath)}`,
      ],
      Math.max(1, deadline - Date.now()),
    );
    const [meta, file] = await Promise.all([sharp(previewPath).metadata(), stat(previewPath)]);
    described.preview = previewFile(meta.width, meta.height, file.size);
  } catch {
    // No decodable frame: the video keeps its size and duration.
  }
  return described;
}
