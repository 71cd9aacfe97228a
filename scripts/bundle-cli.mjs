// The CLI as one CommonJS file, dist/cli/roster.cjs, which bin/roster.js loads (`npm run build`
// runs this after tsc). On Node 20 a one-shot command spent more time loading ~55 ES modules one
// by one (the ESM loader reads each file asynchronously, then resolves and links it) than talking
// to the service. One CommonJS file is read and compiled once, and esbuild keeps every
// `import()` of a bundled module lazy: a command's module is still initialised only when it runs.
//
// In it: our CLI, client and contract code, commander, and the parts of undici we import
// (client/undici-pool.ts: its Pool and request API, ~45 files that Node would otherwise resolve
// and read one by one; none of its index, fetch, WebSocket, cache or mock code runs), and its
// EnvHttpProxyAgent (client/undici-proxy.ts, 6 files more), initialised only when a proxy is
// set: http.ts reaches it through import(), which esbuild keeps lazy. (As a bundle of its own
// it would carry a second copy of the Pool's files: ~50 ms per command behind a proxy.)
//
// Left out of the file, and loaded as before when a command needs them:
// - the service (dist/server, dist/store): only `roster serve` and the local admin commands use
//   it, always through `import()` (checked below; a static import would load Koa for every
//   command), and it keeps its own paths (workers, previews);
// - zod, csv-parse, csv-stringify: required on first use through their CommonJS builds; bundled,
//   their code would be compiled by every command that never validates or reads a CSV;
// - conf, ora, @inquirer/prompts: ES modules, loaded through `import()` when a command needs them.
import { readFile } from 'node:fs/promises';
import { dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = `${ROOT}dist/`;
export const OUTFILE = `${DIST}cli/roster.cjs`;
const SERVICE = [`${DIST}server/`, `${DIST}store/`];
const EXTERNAL = /^(zod|csv-parse|csv-stringify|conf|ora|@inquirer\/prompts)(\/|$)/;

/** Keeps the service and the heavier packages outside the bundle (see above). */
const outside = {
  name: 'outside',
  setup(b) {
    b.onResolve({ filter: /.*/ }, async (args) => {
      if (args.kind === 'entry-point' || args.pluginData === outside) return undefined;
      if (EXTERNAL.test(args.path)) return { path: args.path, external: true };
      const res = await b.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: outside,
      });
      if (res.errors.length > 0 || !SERVICE.some((dir) => res.path.startsWith(dir))) return res;
      if (args.kind !== 'dynamic-import') {
        return {
          errors: [
            {
              text: `${relative(ROOT, args.importer)} imports ${args.path} statically: the CLI reaches the service through import() only, or every command would load it`,
            },
          ],
        };
      }
      const path = relative(dirname(OUTFILE), res.path);
      return { path: path.startsWith('.') ? path : `./${path}`, external: true };
    });
  },
};

/**
 * Two requires made lazy, each needed only by what Roster never does: undici's HTTP/2 client
 * (Node's http2 with tls and crypto, ~5 ms of every command; used only when a server picks h2
 * and the Pool allows it, which ours does not) and commander's child_process (for executable
 * subcommands, which Roster has none of). Each rewrite must match exactly, so an upgrade that
 * moves the line fails the build instead of silently loading them again.
 */
const LAZY = [
  {
    file: /\/undici\/lib\/dispatcher\/client\.js$/,
    from: "const connectH2 = require('./client-h2.js')",
    to: "const connectH2 = (...args) => require('./client-h2.js')(...args)",
  },
  {
    file: /\/commander\/lib\/command\.js$/,
    from: "const childProcess = require('node:child_process');",
    to: "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };",
  },
];

const lazy = {
  name: 'lazy',
  setup(b) {
    b.onLoad({ filter: /\.js$/ }, async (args) => {
      const rule = LAZY.find((r) => r.file.test(args.path.replaceAll('\\', '/')));
      if (!rule) return undefined;
      const source = await readFile(args.path, 'utf8');
      if (source.split(rule.from).length !== 2) {
        return { errors: [{ text: `${args.path}: expected exactly one \`${rule.from}\`` }] };
      }
      return { contents: source.replace(rule.from, rule.to), loader: 'js' };
    });
  },
};

export async function bundleCli() {
  await build({
    entryPoints: [`${DIST}cli/main.js`],
    outfile: OUTFILE,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // version.ts reads ../../package.json next to itself; the bundle sits where it did.
    define: { 'import.meta.url': '__importMetaUrl' },
    banner: { js: "const __importMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
    plugins: [outside, lazy],
    // Every command compiles the whole file first: whitespace and syntax minified it is ~30 %
    // smaller (names are kept). The source map, chained through tsc's, is read only with
    // --verbose (bin/roster.js), so that a stack names src/ files and lines.
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: 'linked',
    logLevel: 'warning',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await bundleCli();
