# Sourced by scripts/container-test.sh (its helpers and variables): one container of the image on the
# state file in a /data volume, as a CI service container runs it.
ctr=mock-server-test-file-$$
ctrs+=("$ctr")
port=$(free_port)
base=http://127.0.0.1:$port
mkdir -p "$work/data"
say "podman run on port $port, state volume $work/data:/data, MOCK_SERVER_ADMIN_TOKEN set"
# --health-interval=disable: no systemd here to run the interval timer; the check is run on demand.
# :U gives the volume to the image's user (node, uid 1000).
pm run -d --name "$ctr" --network=host --health-interval=disable \
  -e MOCK_SERVER_PORT="$port" -e MOCK_SERVER_ADMIN_TOKEN="$admin_token" \
  -v "$work/data:/data:U" "$image" >/dev/null || die "podman run failed"
wait_healthy "$ctr" "$base"
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
api=$base/api/v3
token=
call POST /login '{"client_id":"sandbox-client","client_secret":"sandbox-secret","grant_type":"client_credentials"}'
token=$(jget b.access_token)
book "$base/api/v3" "$base/api/v3"
[ -s "$work/data/state.json" ] || die "no state file in the /data volume"

# --- restart keeps the booking ----------------------------------------------------------------
t0=$SECONDS
pm restart -t 10 "$ctr" >/dev/null || die "podman restart failed"
wait_healthy "$ctr" "$base"
say "restarted and healthy again in $((SECONDS - t0)) s"
call GET "/orders/$order"   # the access token survives the restart too (file store)
[ "$(jget b.uuid)" = "$order" ] || die "GET /orders/$order after the restart: another order"
[ "$(jget b.items[0].status)" = OK ] || die "item status after the restart: $(jget b.items[0].status)"
http GET "$base/__admin/orders" "" "Bearer $admin_token"
[ "$status" = 200 ] && [[ $body == *"$order"* ]] || die "GET /__admin/orders after the restart does not list $order ($status)"
say "after the restart GET /orders/$order: same order, item OK"

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
pm rm "$ctr" >/dev/null
