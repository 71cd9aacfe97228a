/** The package version, read once from package.json (two levels up from dist/cli or src/cli). */
import { readFileSync } from 'node:fs';

let cached: string | undefined;

export function version(): string {
  cached ??= JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))
    .version as string;
  return cached!;
}
