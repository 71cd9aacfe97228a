/**
 * `roster api [-X METHOD] PATH [--input FILE|-] [-H 'Name: value']…`: a raw call with the
 * profile's token, tenant and negotiated media types, as `gh api`. JSON out; exit codes as every
 * other command (404 → 4, 401/403 → 3). The path is relative to the profile's API: absolute URLs
 * and `//host` are refused (exit 2), so the token never leaves it.
 */
import type { Command } from 'commander';
import { forbiddenKeyIn, forbiddenKeyText } from '../../../contract/safe-keys.js';
import type { Deps, GlobalOptions } from '../../context.js';
import { usageError } from '../../errors.js';
import { collect, globalsOf } from '../shared/options.js';

export interface ApiOptions {
  path: string;
  method?: string;
  input?: string;
  header?: string[];
  globals: GlobalOptions;
}

export function register(program: Command, deps: Deps, runFn = runApi) {
  program
    .command('api')
    .description("a raw authenticated call to the profile's API, as `gh api` (JSON out)")
    .argument('<path>', "a path relative to the profile's API, e.g. /users?limit=5 or /branch")
    .option(
      '-X, --method <method>',
      'GET, POST, PUT, PATCH, DELETE, HEAD or OPTIONS (default: GET; POST with --input)',
    )
    .option(
      '--input <file>',
      "the request body from a file ('-' reads standard input); JSON gets the negotiated type",
    )
    .option(
      '-H, --header <line>',
      "a request header, 'Name: value' (repeatable; never Authorization or Host)",
      collect,
    )
    .addHelpText(
      'after',
      `
The token, tenant and media types are the profile's, as for every other command. A path that is
an absolute URL, starts with // or leads off the API is refused (exit 2): the token stays with
the API. Exit codes as other commands: 0 ok, 3 not allowed (401/403), 4 not found, 1 other errors.`,
    )
    .action((path: string, opts: Omit<ApiOptions, 'path' | 'globals'>, cmd: Command) =>
      runFn({ path, ...opts, globals: globalsOf(cmd) }, deps),
    );
}

/** `Name: value` → [name, value]; a usage error for anything else or a reserved name. */
function parseHeader(line: string, reserved: readonly string[]): [string, string] {
  const at = line.indexOf(':');
  const name = line.slice(0, at).trim();
  if (at <= 0 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
    throw usageError(`-H expects 'Name: value', got '${line}'`);
  }
  if (reserved.includes(name.toLowerCase())) {
    throw usageError(`-H ${name}: the profile's token and API decide the ${name} header`);
  }
  return [name, line.slice(at + 1).trim()];
}

export async function runApi(opts: ApiOptions, deps: Deps): Promise<void> {
  const raw = await import('../../../client/raw.js');
  const method = (opts.method ?? (opts.input === undefined ? 'GET' : 'POST')).toUpperCase();
  if (!(raw.RAW_METHODS as readonly string[]).includes(method)) {
    throw usageError(`-X must be one of ${raw.RAW_METHODS.join(', ')}, got '${opts.method}'`);
  }
  const headers = Object.fromEntries(
    (opts.header ?? []).map((h) => parseHeader(h, raw.RESERVED_HEADERS)),
  );
  const { apiClient } = await import('../../client.js');
  const client = await apiClient(opts.globals, deps);
  const target = raw.apiPath(client.http.baseUrl, opts.path);
  if ('refused' in target) {
    throw usageError(
      `${opts.path}: not a path relative to the profile's API (${target.refused}); give a path such as /users, so the token stays with ${client.http.baseUrl}`,
    );
  }
  const body = opts.input === undefined ? undefined : await readInput(opts.input, deps);
  const typed = Object.keys(headers).some((h) => h.toLowerCase() === 'content-type');
  const answer = await raw.rawRequest(client.http, {
    method: method as (typeof raw.RAW_METHODS)[number],
    path: opts.path,
    headers,
    ...(body === undefined ? {} : typed ? { body } : jsonOrBytes(body, opts.input!)),
  });
  if (answer.data === undefined) return;
  const { renderOne } = await import('../../output/render.js');
  await renderOne(deps.io, 'json', answer.data, []);
}

/** A JSON body is sent as JSON (its media type negotiated); anything else as given. */
function jsonOrBytes(body: Uint8Array, file: string): { json: unknown } | { body: Uint8Array } {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(body).toString('utf8'));
  } catch {
    return { body };
  }
  // Own keys after JSON.parse, but the service, or anything copying the body, may assign them.
  const bad = forbiddenKeyIn(json);
  if (bad !== undefined) throw usageError(`--input ${file}: ${forbiddenKeyText(bad)}`);
  return { json };
}

async function readInput(file: string, deps: Deps): Promise<Uint8Array> {
  if (file !== '-') {
    return (await import('node:fs/promises')).readFile(file).catch((err: NodeJS.ErrnoException) => {
      throw usageError(`--input ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
    });
  }
  const chunks: Buffer[] = [];
  for await (const chunk of deps.io.stdin) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}
