/**
 * `roster media download <id>`: streams the medium's file (or its t_preview) to a local file.
 * The bytes go to a temp file beside the target, renamed into place only once complete, so a
 * failure or Ctrl-C never leaves a half-written file; an existing file is kept unless --force.
 */
import type { Command } from 'commander';
import type { Medium } from '../../../contract/medium.js';
import { PREVIEW, pixelLimitReason } from '../../../contract/medium.js';
import { type Deps, type GlobalOptions, note, onCleanup } from '../../context.js';
import { CliError, EXIT, usageError } from '../../errors.js';
import { globalsOf } from '../shared/options.js';

export interface DownloadOptions {
  id: string;
  to?: string;
  preview?: boolean;
  force?: boolean;
  globals: GlobalOptions;
}

export function register(media: Command, deps: Deps, runFn = runDownload) {
  media
    .command('download')
    .description("save a medium's file (or with --preview its t_preview image)")
    .argument('<id>', 'the medium id')
    .option(
      '--to <path>',
      "file or existing directory to write, or - for stdout (default: the medium's file name here)",
    )
    .option('--preview', 'the preview image (t_preview) instead of the original')
    .option('--force', 'overwrite an existing file (with --to -: write binary to a terminal)')
    .action((id: string, opts: Omit<DownloadOptions, 'id' | 'globals'>, cmd: Command) =>
      runFn({ id, ...opts, globals: globalsOf(cmd) }, deps),
    );
}

/** The resource to fetch and the local name it gets by default. */
function pick(medium: Medium, preview: boolean | undefined) {
  if (!preview) return { info: medium.resourceInfo, name: medium.fileName };
  const info = medium.transformations?.[PREVIEW]?.resourceInfo;
  if (!info) {
    const { type, width, height, mimeType } = medium.resourceInfo;
    // What the medium itself shows; the reason the service gave is in the upload's answer only.
    const why =
      type === 'raw' || mimeType === 'image/svg+xml'
        ? 'previews are made for raster images, PDFs and (with ffmpeg on the service) videos'
        : ((type === 'image' ? pixelLimitReason(width, height) : undefined) ??
          'the service could not make one (a damaged file, or one too slow to render)');
    throw new CliError(
      `medium ${medium.id} (${medium.fileName}) has no preview: ${why}`,
      EXIT.notFound,
    );
  }
  const dot = medium.fileName.lastIndexOf('.');
  const stem = dot > 0 ? medium.fileName.slice(0, dot) : medium.fileName;
  return { info, name: `${stem}.preview.${info.format}` };
}

export async function runDownload(opts: DownloadOptions, deps: Deps): Promise<void> {
  const { io } = deps;
  const { apiClient } = await import('../../client.js');
  const { localFileName } = await import('./files.js');
  const { saveStream, targetPath } = await import('./save.js');
  const { formatBytes, transferBars } = await import('../../output/transfer.js');
  const client = await apiClient(opts.globals, deps);
  const medium = await client.getMedium(opts.id);
  const { info, name } = pick(medium, opts.preview);

  if (opts.to === '-') {
    if (io.stdoutIsTTY && !opts.force && !/^text\//.test(info.mimeType)) {
      throw usageError(
        `not writing binary (${info.mimeType}) to a terminal: redirect stdout to a file, or pass --force`,
      );
    }
    const { pipeline } = await import('node:stream/promises');
    const { capAt } = await import('./save.js');
    const cap = capAt(info.bytes, undefined, 'output stopped at that size');
    await pipeline(await client.downloadUrl(info.url), cap, io.stdout, {
      end: false,
    });
    return;
  }
  const fallback = `medium-${medium.id}${opts.preview ? `.preview.${info.format}` : ''}`;
  const target = await targetPath(opts.to, localFileName(name, fallback), opts.force);
  const bars = transferBars(io);
  onCleanup(deps, () => bars.end());
  const bar = bars.add(name, info.bytes);
  const bytes = await saveStream(
    () => client.downloadUrl(info.url),
    target,
    { force: opts.force, expectedBytes: info.bytes, onProgress: (n) => bar.update(n) },
    (fn) => onCleanup(deps, fn),
  );
  bars.end();
  note(io, `saved ${name} (${formatBytes(bytes)}) to ${target}`);
}
