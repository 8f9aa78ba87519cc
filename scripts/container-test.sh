#!/usr/bin/env bash
# Builds the Dockerfile with podman and runs the image for real: health (HTTP and podman's
# HEALTHCHECK), the admin token, a booking through the API, a restart that keeps the booking
# (state in a /data volume), and a clean SIGTERM stop with a dashboard event stream open. Exits
# non-zero with a message on any failure.
#
# Usage (as root): bash scripts/container-test.sh
# Needs: podman, runc, debootstrap (apt-get install -y podman runc debootstrap), curl, node, npm.
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

work=$(mktemp -d /tmp/mock-server-container-test.XXXXXX)
ctr=mock-server-test-$$
failed=1
cleanup() {
  local rc=$?
  if [ "$failed" = 1 ] && podman container exists "$ctr" 2>/dev/null; then
    echo "--- last 40 lines of the container's log ---" >&2
    podman logs --tail 40 "$ctr" >&2 2>&1 || true
  fi
  podman rm -f -t 0 "$ctr" >/dev/null 2>&1 || true
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

# --- helpers ------------------------------------------------------------------------------------
port=$(node -e 'const s=require("net").createServer();s.listen(0,()=>{console.log(s.address().port);s.close()})')
admin_token=ct-$(node -e 'console.log(require("crypto").randomBytes(12).toString("hex"))')
base=http://127.0.0.1:$port
api=$base/api/v3
token=

# http METHOD URL [JSON] [AUTH]: sets $status and $body. AUTH: a full Authorization header value.
http() {
  local args=(-sS -o "$work/body" -w '%{http_code}' --max-time 30 -X "$1" -H "X-Service-Application: $app")
  [ -z "${3:-}" ] || args+=(-H 'Content-Type: application/json' --data "$3")
  [ -z "${4:-}" ] || args+=(-H "Authorization: $4")
  status=$(curl "${args[@]}" "$2" 2>"$work/curl.err") || status="000 ($(cat "$work/curl.err"))"
  body=$(cat "$work/body" 2>/dev/null || true)
}
# call METHOD PATH [JSON]: partner API call with the access token; dies unless 200.
call() {
  http "$1" "$api$2" "${3:-}" ${token:+"Bearer $token"}
  [ "$status" = 200 ] || die "$1 $2 answered $status, expected 200: ${body:0:400}"
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
running() { [ "$(pm inspect --format '{{.State.Running}}' "$ctr" 2>/dev/null)" = true ]; }
wait_healthy() {
  local deadline=$((SECONDS + 40))
  while :; do
    running || die "the container stopped while starting (exit code $(pm inspect --format '{{.State.ExitCode}}' "$ctr" 2>/dev/null))"
    http GET "$base/__admin/health"
    [ "$status" = 200 ] && break
    [ "$SECONDS" -lt "$deadline" ] || die "GET /__admin/health not 200 within 40 s (last: $status)"
    sleep 0.3
  done
  # The image's HEALTHCHECK, run by podman (no systemd timers here: run on demand).
  pm healthcheck run "$ctr" >/dev/null || die "podman healthcheck run: unhealthy"
  local h
  h=$(pm inspect --format '{{.State.Health.Status}}' "$ctr")
  [ "$h" = healthy ] || die "podman health status is '$h', expected healthy"
}

# --- run ----------------------------------------------------------------------------------------
mkdir -p "$work/data"
say "podman run on port $port, state volume $work/data:/data, MOCK_SERVER_ADMIN_TOKEN set"
# --health-interval=disable: no systemd here to run the interval timer; the check is run on demand.
# :U gives the volume to the image's user (node, uid 1000).
pm run -d --name "$ctr" --network=host --health-interval=disable \
  -e MOCK_SERVER_PORT="$port" -e MOCK_SERVER_ADMIN_TOKEN="$admin_token" \
  -v "$work/data:/data:U" "$image" >/dev/null || die "podman run failed"
wait_healthy
say "healthy: GET /__admin/health 200, podman health status healthy"

[ "$(pm exec "$ctr" id -u)" != 0 ] || die "the server runs as root"
logs=$(pm logs "$ctr" 2>&1)
[[ $logs == *"http://0.0.0.0:$port/api/v3"* ]] || die "the banner does not show 0.0.0.0:$port"
ip=$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -m 1 -E '^[0-9.]+$') || ip=
if [ -n "$ip" ]; then
  http GET "http://$ip:$port/__admin/health"
  [ "$status" = 200 ] || die "not reachable on $ip:$port (listens on 0.0.0.0?): $status"
fi

# The dashboard's page and Preact with htm from the image's node_modules (open: the page asks for the token).
for path in /__admin/ui/ /__admin/ui/app.js /__admin/ui/vendor/preact-htm.js /__admin/docs/json; do
  http GET "$base$path"
  [ "$status" = 200 ] || die "GET $path answered $status, expected 200"
done
say "dashboard and control API docs served: /__admin/ui/, its script, Preact with htm, /__admin/docs/json"

http GET "$base/__admin/orders"
[ "$status" = 401 ] || die "GET /__admin/orders without the admin token answered $status, expected 401"
http GET "$base/__admin/orders" "" "Bearer wrong-$admin_token"
[ "$status" = 401 ] || die "GET /__admin/orders with a wrong admin token answered $status, expected 401"
http GET "$base/__admin/orders" "" "Bearer $admin_token"
[ "$status" = 200 ] || die "GET /__admin/orders with the admin token answered $status, expected 200"
say "admin token: 401 without it or with a wrong one, 200 with it; health open"

# --- a booking ------------------------------------------------------------------------------------
call POST /login '{"client_id":"sandbox-client","client_secret":"sandbox-secret","grant_type":"client_credentials"}'
token=$(jget b.access_token)
call GET "/activities/$activity/dates"
today=$(date -u +%F)
day=$(jget "b.find(d => !d.sold_out && d.day > '$today')?.day")
call GET "/activities/$activity/dates/$day"
product=$(jget 'b[0].groups[0].slots[0].products[0].product_id')
call POST /carts
cart=$(jget b.uuid)
call POST "/carts/$cart/items" "[{\"type\":\"musement\",\"product_identifier\":\"$product\",\"quantity\":2}]"
[ "$(jget b.status)" = PREBOOK_OK ] || die "cart item status is not PREBOOK_OK: ${body:0:400}"
call PUT "/carts/$cart/customer" '{"firstname":"Ada","lastname":"Lovelace","email":"ada@example.com","musement_newsletter":"NO","allow_profiling":"NO","thirdparty_newsletter":"NO","events_related_newsletter":"NO"}'
call POST /orders "{\"cart_uuid\":\"$cart\",\"email_notification\":\"NONE\"}"
order=$(jget b.uuid)
call POST /payments/no/payment "{\"uuid\":\"$order\"}"
call GET "/orders/$order"
order_status=$(jget b.status)
item_status=$(jget b.items[0].status)
[ "$item_status" = OK ] || die "after payment the item is $item_status, expected OK (instant confirmation)"
say "booked: order $order on $day ($order_status, item $item_status)"
[ -s "$work/data/state.json" ] || die "no state file in the /data volume"

# --- restart keeps the booking ----------------------------------------------------------------
t0=$SECONDS
pm restart -t 10 "$ctr" >/dev/null || die "podman restart failed"
wait_healthy
say "restarted and healthy again in $((SECONDS - t0)) s"
call GET "/orders/$order"   # the access token survives the restart too (file store)
[ "$(jget b.uuid)" = "$order" ] || die "GET /orders/$order after the restart: another order"
[ "$(jget b.status)" = "$order_status" ] || die "order status changed over the restart: $(jget b.status), was $order_status"
[ "$(jget b.items[0].status)" = OK ] || die "item status after the restart: $(jget b.items[0].status)"
http GET "$base/__admin/orders" "" "Bearer $admin_token"
[ "$status" = 200 ] && [[ $body == *"$order"* ]] || die "GET /__admin/orders after the restart does not list $order ($status)"
say "after the restart GET /orders/$order: same order, $order_status, item OK"

# --- SIGTERM stops it cleanly, with a dashboard's event stream open ----------------------------
curl -sN "$base/__admin/events?access_token=$admin_token" >"$work/events" 2>/dev/null &
stream=$!
for _ in $(seq 50); do grep -q 'event: hello' "$work/events" 2>/dev/null && break; sleep 0.1; done
grep -q 'event: hello' "$work/events" || die "GET /__admin/events did not open: $(head -c 300 "$work/events")"
t0=$(date +%s%N)
pm stop -t 10 "$ctr" >/dev/null || die "podman stop failed"
ms=$((($(date +%s%N) - t0) / 1000000))
code=$(pm inspect --format '{{.State.ExitCode}}' "$ctr")
wait "$stream" 2>/dev/null || true
[ "$code" = 0 ] || die "exit code $code after podman stop (SIGTERM) with an event stream open, expected 0"
[ "$ms" -lt 5000 ] || die "podman stop took $ms ms with an event stream open, expected under 5 s"
grep -q 'event: bye' "$work/events" || die "the event stream did not get its last 'bye' event: $(tail -c 300 "$work/events")"
say "podman stop (SIGTERM) with a dashboard event stream open: exit code 0 in $ms ms, the stream told 'bye'"

failed=0
say "PASS (image $image, base $base_image)"
