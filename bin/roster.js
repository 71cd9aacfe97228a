#!/usr/bin/env node
// The CLI is compiled and bundled to dist/cli/roster.cjs by `npm install` (prepare) or
// `npm run build`. This file is CommonJS (bin/package.json): an ES module entry point would start
// Node's ESM loader, which a one-shot command does not need.
// On Node >= 22.1 V8's compiled code is kept on disk (under os.tmpdir()) so the next run skips
// compiling the bundle; Node 20 has no such cache, hence the guard. NODE_DISABLE_COMPILE_CACHE=1
// turns it off (Node checks that itself).
require('node:module').enableCompileCache?.();
// --verbose prints stacks: map them to src/ through the bundle's source map (read only then).
if (process.argv.includes('--verbose')) process.setSourceMapsEnabled(true);
require('../dist/cli/roster.cjs').main(process.argv);
