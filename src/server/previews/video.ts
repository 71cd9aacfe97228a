/**
 * Videos with ffprobe (size, rotation, duration) and ffmpeg (one frame, scaled to fit 800×800),
 * both from PATH or FFPROBE_PATH / FFMPEG_PATH; without them a video simply has no preview.
 * Hardened for untrusted files: local files only, a whitelist of container demuxers (no concat,
 * HLS or data demuxers that could reach other files or the network), no stdin, killed at the
 * deadline.
 */
import { access, stat } from 'node:fs/promises';
import sharp from 'sharp';
import { fileArg, runFfmpeg as run, safeInput } from '../../images/ffmpeg.js';
import { type Described, PREVIEW_MAX, previewFile } from './preview-file.js';

const SAFE_INPUT = safeInput('mov,mp4,matroska,webm,avi,flv,mpegts,mpeg,ogg,asf');

interface Probe {
  streams?: {
    codec_type?: string;
    width?: number;
    height?: number;
    sample_aspect_ratio?: string;
    duration?: string;
    tags?: { rotate?: string };
    side_data_list?: { rotation?: number }[];
  }[];
  format?: { duration?: string };
}

/** The sample (pixel) aspect ratio: 64:45 for anamorphic PAL widescreen; 1 when unknown. */
function sampleAspect(sar: string | undefined): number {
  const [num, den] = (sar ?? '').split(':').map(Number);
  return num && den && Number.isFinite(num / den) ? num / den : 1;
}

/**
 * Display size and duration from ffprobe's answer: non-square pixels stretch the width (720×576
 * at 64:45 shows as 1024×576), and 90° rotations swap width and height.
 */
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
    const width = Math.round(video.width * sampleAspect(video.sample_aspect_ratio));
    described.width = turned ? video.height : width;
    described.height = turned ? width : video.height;
  }
  return described;
}

export async function describeVideo(
  path: string,
  previewPath: string,
  timeoutMs: number,
): Promise<Described> {
  const deadline = Date.now() + timeoutMs;
  const input = fileArg(path);
  const probe = JSON.parse(
    await run(
      'ffprobe',
      [
        '-v',
        'error',
        ...SAFE_INPUT,
        '-show_entries',
        'stream=codec_type,width,height,sample_aspect_ratio,duration:stream_tags=rotate:stream_side_data=rotation:format=duration',
        '-of',
        'json',
        input,
      ],
      timeoutMs,
    ),
  ) as Probe;
  const described = fromProbe(probe);
  if (described.width === undefined) return described;
  // A frame a second in (past fade-ins), or from the middle of a shorter clip; when that lands
  // past the only frame (ffmpeg then writes nothing and still succeeds), the first frame.
  const at = Math.min(1, (described.duration ?? 0) / 2);
  try {
    await grabFrame(input, at, previewPath, deadline);
    // Strictly decoded: a truncated file's broken first frame is no preview.
    if (at > 0 && !(await exists(previewPath))) {
      await grabFrame(input, 0, previewPath, deadline, ['-err_detect', 'explode', '-xerror']);
    }
    const [meta, file] = await Promise.all([sharp(previewPath).metadata(), stat(previewPath)]);
    described.preview = previewFile(meta.width, meta.height, file.size);
  } catch {
    // No decodable frame: the video keeps its size and duration.
  }
  return described;
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** One frame at `at` seconds, square pixels (anamorphic frames stretched), fit in 800×800. */
async function grabFrame(
  input: string,
  at: number,
  previewPath: string,
  deadline: number,
  strict: string[] = [],
) {
  const square = "scale='trunc(iw*sar/2)*2':ih,setsar=1";
  const fit = `scale=w='min(${PREVIEW_MAX},iw)':h='min(${PREVIEW_MAX},ih)':force_original_aspect_ratio=decrease`;
  await run(
    'ffmpeg',
    [
      '-nostdin',
      '-v',
      'error',
      ...SAFE_INPUT,
      ...(at > 0 ? ['-ss', at.toFixed(3)] : []),
      ...strict,
      '-i',
      input,
      '-frames:v',
      '1',
      '-vf',
      `${square},${fit}`,
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
      fileArg(previewPath),
    ],
    Math.max(1, deadline - Date.now()),
  );
}
