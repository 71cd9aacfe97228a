#!/usr/bin/env bash
# Packaging test (issue 23 §7): what a user gets from `npm install -g` of the published tarball.
# `npm pack`, then a global install into an empty prefix with a fresh HOME and no dev
# dependencies, then the installed `roster --version`, `roster serve` and `roster users list`.
# The tarball holds only what package.json's `files` names (bin, dist) besides package.json,
# README and LICENSE: no sources, tests or fixtures. Runs with the `node` and `npm` on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
serve_pid=
cleanup() {
  [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "pack-test: $*" >&2
  exit 1
}

# The packages come from the cache the clone's install filled, without asking the registry
# again about what it holds (--prefer-offline; the registry where it lacks one): a fresh HOME
# would otherwise mean a fresh cache and every package downloaded again.
cache=$(npm config get cache)
# Install scripts off: the only one the runtime needs is better-sqlite3's native build, which
# the clone's own install has just compiled for this node (no prebuilt binary is reachable here,
# so a second compile cost ~80 s of CPU for nothing the test checks); it is copied in below.
tgz=$(npm pack --silent --ignore-scripts --pack-destination "$work" | tail -1)
stray=$(tar -tzf "$work/$tgz" |
  grep -Ev '^package/(bin/|dist/|package\.json$|README\.md$|LICENSE(\.md)?$)' || true)
[ -z "$stray" ] || fail "the tarball holds files outside 'files': $stray"

export HOME="$work/home"
mkdir -p "$HOME"
unset ROSTER_CONFIG_DIR ROSTER_DATA_DIR ROSTER_DATABASE_URL ROSTER_BASE_URL ROSTER_TOKEN \
  ROSTER_PROFILE ROSTER_TEST_DATABASE ROSTER_TEST_BLOBS
npm install -g --prefix "$work/prefix" --omit=dev --no-audit --no-fund --prefer-offline \
  --cache "$cache" --ignore-scripts \
  "$work/$tgz" >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail 'npm install -g failed'; }
roster="$work/prefix/bin/roster"
installed="$work/prefix/lib/node_modules/roster"
cp -r node_modules/better-sqlite3/build "$installed/node_modules/better-sqlite3/"
[ -d "$installed/node_modules/vitest" ] &&
  fail 'a dev dependency was installed'

want=$(node -p 'require("./package.json").version')
got=$("$roster" --version)
[ "$got" = "$want" ] || fail "roster --version said '$got', not '$want'"

# serve on a free port; its last line says where, once the profile it saves can be used.
"$roster" serve --port 0 --data "$work/data" 2>"$work/serve.log" &
serve_pid=$!
for _ in $(seq 1 300); do
  grep -q 'listening on' "$work/serve.log" && break
  kill -0 "$serve_pid" 2>/dev/null || { cat "$work/serve.log"; fail 'roster serve exited'; }
  sleep 0.1
done
grep -q 'listening on' "$work/serve.log" || { cat "$work/serve.log"; fail 'roster serve did not start in 30 s'; }

"$roster" users list -o json >"$work/users.json" || fail 'roster users list failed'
node -e 'const p = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  if (!Array.isArray(p)) throw new Error("not a user list: " + JSON.stringify(p));' \
  "$work/users.json"
echo "pack-test: $tgz installed with --omit=dev; --version, serve and users list work"
