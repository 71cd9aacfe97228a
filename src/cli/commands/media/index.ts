/** `roster media …`: one module per verb, each exporting `register(media, deps)`. */
import type { Command } from 'commander';
import type { Deps } from '../../context.js';

type VerbModule = { register(media: Command, deps: Deps): unknown };

export const VERBS: (() => Promise<VerbModule>)[] = [
  () => import('./upload.js'),
  () => import('./list.js'),
  () => import('./show.js'),
  () => import('./download.js'),
  () => import('./delete.js'),
];

export async function register(program: Command, deps: Deps): Promise<void> {
  const media = program
    .command('media')
    .description('upload, list, show, download and delete media (images, videos, PDFs, files)');
  for (const load of VERBS) await (await load()).register(media, deps);
}
