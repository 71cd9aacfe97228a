#!/usr/bin/env bash
# A built checkout of an earlier commit, for the benches that measure "before" and "after" in
# the same run (events.bench.mjs: BENCH_EVENTS_BASE). Its own node_modules: an old commit's
# dependencies are not today's.
#   bench/baseline.sh REF DIR [PATCH]   e.g. bench/baseline.sh dfc1c76 /tmp/roster-before-events
# PATCH (a path) is applied to the checkout before it is built: bench/without-events.patch makes
# REF without its event rows, so a bench measures what the events alone cost.
set -euo pipefail
ref=${1:?a commit}
dir=${2:?a directory}
patch=${3:+$(realpath "$3")}
root=$(cd "$(dirname "$0")/.." && pwd)
git -C "$root" worktree add --detach "$dir" "$ref"
cd "$dir"
if [ -n "$patch" ]; then git apply "$patch"; fi
npm ci --no-audit --no-fund
npm run build
echo "built $ref in $dir: BENCH_EVENTS_BASE=$dir"
