#!/usr/bin/env node
// The CLI is compiled and bundled to dist/cli/roster.cjs by `npm install` (prepare) or
// `npm run build`. This file is CommonJS (bin/package.json): an ES module entry point would start
// Node's ESM loader, which a one-shot command does not need.
require('../dist/cli/roster.cjs').main(process.argv);
