#!/usr/bin/env node
// The CLI is compiled to dist/ by `npm install` (prepare) or `npm run build`.
import { main } from '../dist/cli/main.js';

main(process.argv);
