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
//   command), and it keeps its own paths (workers, previews); so do the image decoders
//   (dist/images: HEIC, BMP, ICO), which the avatar commands reach through import() as well;
// - zod, csv-parse, csv-stringify, yaml: required on first use through their CommonJS builds; bundled,
//   their code would be compiled by every command that never validates, reads a CSV or writes YAML;
// - conf, ora, @inquirer/prompts: ES modules, loaded through `import()` when a command needs them;
// - sharp (avatar commands): a native module with its own loader for libvips' binaries;
// - exceljs (an .xlsx export) and saxes (the .xlsx import's XML parser, required by
//   import/xlsx-xml.ts): exceljs is 1.5 MB that tripled the file every command compiles, and
//   saxes with xmlchars ~80 kB that only an .xlsx import runs (CommonJS, required on first use
//   as csv-parse is).
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = `${ROOT}dist/`;
export const OUTFILE = `${DIST}cli/roster.cjs`;
const SERVICE = [`${DIST}server/`, `${DIST}store/`, `${DIST}images/`];
const EXTERNAL =
  /^(zod|csv-parse|csv-stringify|yaml|conf|ora|@inquirer\/prompts|sharp|exceljs|saxes)(\/|$)/;

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
 * subcommands, which Roster has none of). Each rewrite must match exactly once, and be made
 * once per build, so an upgrade that moves the line or the file fails the build instead of
 * silently loading them again.
 */
export const LAZY = [
  {
    pkg: 'undici',
    file: 'lib/dispatcher/client.js',
    from: "const connectH2 = require('./client-h2.js')",
    to: "const connectH2 = (...args) => require('./client-h2.js')(...args)",
  },
  {
    pkg: 'commander',
    file: 'lib/command.js',
    from: "const childProcess = require('node:child_process');",
    to: "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };",
  },
];

/**
 * The packages whose files are rewritten above, or deep-imported (client/undici-pool.ts,
 * client/undici-proxy.ts: undici's lib/ paths, which are not its public API), must be the exact
 * versions this was written for: package.json pins them, and the build stops when what is
 * installed is not that version.
 */
export function checkPins(root = ROOT) {
  const { dependencies } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  for (const pkg of new Set(LAZY.map((r) => r.pkg))) {
    const pinned = dependencies[pkg];
    if (!/^\d+\.\d+\.\d+$/.test(pinned ?? '')) {
      throw new Error(
        `package.json: ${pkg} is '${pinned}', not an exact version; scripts/bundle-cli.mjs rewrites its source, so pin the version that was checked (npm install --save-exact ${pkg}@<version>)`,
      );
    }
    const manifest = join(root, 'node_modules', pkg, 'package.json');
    const { version } = JSON.parse(readFileSync(manifest, 'utf8'));
    if (version !== pinned) {
      throw new Error(
        `${pkg} ${version} is installed, package.json pins ${pinned}: run npm ci, or check scripts/bundle-cli.mjs (LAZY) and client/undici-*.ts against ${version} and pin it`,
      );
    }
  }
}

/** The rule for a file of node_modules, if any. */
export const ruleFor = (path) =>
  LAZY.find((r) => path.replaceAll('\\', '/').endsWith(`/node_modules/${r.pkg}/${r.file}`));

/** `source` with the rule applied; throws unless its line is there exactly once. */
export function rewrite(rule, source, path = `${rule.pkg}/${rule.file}`) {
  if (source.split(rule.from).length !== 2) {
    throw new Error(`${path}: expected exactly one \`${rule.from}\` (scripts/bundle-cli.mjs)`);
  }
  return source.replace(rule.from, rule.to);
}

function lazyPlugin(applied) {
  return {
    name: 'lazy',
    setup(b) {
      b.onLoad({ filter: /\.js$/ }, async (args) => {
        const rule = ruleFor(args.path);
        if (!rule) return undefined;
        applied.set(rule, (applied.get(rule) ?? 0) + 1);
        try {
          return {
            contents: rewrite(rule, await readFile(args.path, 'utf8'), args.path),
            loader: 'js',
          };
        } catch (err) {
          return { errors: [{ text: err.message }] };
        }
      });
    },
  };
}

export async function bundleCli() {
  checkPins();
  const applied = new Map();
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
    plugins: [outside, lazyPlugin(applied)],
    // Every command compiles the whole file first: whitespace and syntax minified it is ~30 %
    // smaller (names are kept). The source map, chained through tsc's, is read only with
    // --verbose (bin/roster.js), so that a stack names src/ files and lines.
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  for (const rule of LAZY) {
    const times = applied.get(rule) ?? 0;
    if (times !== 1) {
      throw new Error(
        `scripts/bundle-cli.mjs: ${rule.pkg}/${rule.file} was rewritten ${times} times, not once: the file moved or is bundled twice`,
      );
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await bundleCli();
