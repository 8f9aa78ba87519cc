# Sourced by scripts/container-test.sh (its helpers and variables): deploy/compose.yaml's deployment
# without its load balancer. Two containers of the image, as compose runs them (shared sandbox,
# admin token, seed 42) and with read-only root file systems, on one PostgreSQL on the host; a
# booking split between them, and its webhook delivered once to a receiver on the host.

# --- PostgreSQL and a webhook receiver on the host ---------------------------------------------
say "PostgreSQL and a webhook receiver on the host (scripts/container/host.ts)"
TS_NODE_TRANSPILE_ONLY=1 node --import=@tapjs/typescript/import scripts/container/host.ts >"$work/host.json" 2>"$work/host.err" &
host_pid=$!
deadline=$((SECONDS + 120))
until [ -s "$work/host.json" ]; do
  kill -0 "$host_pid" 2>/dev/null || die "scripts/container/host.ts ended: $(tail -c 2000 "$work/host.err")"
  [ "$SECONDS" -lt "$deadline" ] || die "no PostgreSQL within 120 s: $(tail -c 2000 "$work/host.err")"
  sleep 0.2
done
body=$(cat "$work/host.json")
db=$(jget b.db)
receiver=$(jget b.receiver)
received=${receiver%/hook}/received
password=$(jget 'new URL(b.db).password')
shown=${db/:$password@/:***@}

# --- two instances on it ------------------------------------------------------------------------
# What deploy/compose.yaml gives each instance, and a receiver; from a file, so that the database's
# password is on no command line.
cat >"$work/pg.env" <<EOF
MOCK_SERVER_DB=$db
MOCK_SERVER_ADMIN_TOKEN=$admin_token
MOCK_SERVER_SHARED=true
MOCK_SERVER_SEED=42
MOCK_SERVER_WEBHOOK_URL=$receiver
MOCK_SERVER_WEBHOOK_SECRET=whsec-$admin_token
EOF
ca=mock-server-test-a-$$
cb=mock-server-test-b-$$
a_url=http://127.0.0.1:$(free_port)
b_url=http://127.0.0.1:$(free_port)
# --read-only: an instance on PostgreSQL writes nothing to its file system (podman still gives /tmp and
# /run a tmpfs each). Both start at once: the first creates the tables, the other waits for its lock.
instance() {   # NAME ORIGIN
  ctrs+=("$1")
  pm run -d --name "$1" --network=host --read-only --health-interval=disable --env-file "$work/pg.env" \
    -e MOCK_SERVER_PORT="${2##*:}" "$image" >/dev/null || die "podman run $1 failed"
}
instance "$ca" "$a_url"
instance "$cb" "$b_url"
say "podman run --read-only twice on $shown, ports ${a_url##*:} and ${b_url##*:}"
for c in "$ca $a_url" "$cb $b_url"; do
  wait_healthy "${c% *}" "${c#* }"
  [ "$(jget b.store.kind)/$(jget b.store.database)" = postgres/up ] || die "${c% *}: health says store ${body:0:300}"
  logs=$(pm logs "${c% *}" 2>&1)
  [[ $logs =~ store\ +PostgreSQL\ postgres://mock:\*\*\*@127\.0\.0\.1: ]] || die "${c% *}: the banner does not name the database: ${logs:0:1500}"
done
say "both healthy on PostgreSQL (HTTP and podman's HEALTHCHECK), read-only root file systems"

# --- a partner registered through one logs in through the other -------------------------------
http POST "$a_url/__admin/clients" "{\"applications\":[\"$app\"],\"scopes\":[\"no-payment\"],\"name\":\"container test\"}" "Bearer $admin_token"
[ "$status" = 201 ] || die "POST /__admin/clients on a answered $status, expected 201: ${body:0:400}"
client="{\"client_id\":\"$(jget b.client_id)\",\"client_secret\":\"$(jget b.client_secret)\",\"grant_type\":\"client_credentials\"}"
http POST "$b_url/api/v3/login" '{"client_id":"sandbox-client","client_secret":"sandbox-secret","grant_type":"client_credentials"}'
[ "$status" = 401 ] || die "sandbox-client logged in on a shared sandbox: $status"
api=$b_url/api/v3
token=
call POST /login "$client"
token=$(jget b.access_token)
say "a client registered through a logs in through b (sandbox-client refused: shared sandbox)"

# --- a booking split between them, its webhook delivered once ---------------------------------
book "$a_url/api/v3" "$b_url/api/v3"
api=$a_url/api/v3
call GET "/orders/$order"
[ "$(jget b.items[0].status)" = OK ] || die "a sees the item as $(jget b.items[0].status), b as OK"

# deliveries ORIGIN: the item's deliveries as that instance lists them, once each is delivered.
deliveries() {
  local deadline=$((SECONDS + 60))
  while :; do
    http GET "$1/__admin/webhooks/deliveries?order_item_uuid=$item" "" "Bearer $admin_token"
    [ "$status" = 200 ] || die "GET /__admin/webhooks/deliveries on $1 answered $status"
    [ "$(jget "b.deliveries.length > 0 && b.deliveries.every(d => d.state === 'delivered')")" = true ] && return
    [ "$SECONDS" -lt "$deadline" ] || die "the item's deliveries not all delivered within 60 s on $1: ${body:0:1500}"
    sleep 0.3
  done
}
deliveries "$a_url"
ids=$(jget "b.deliveries.map(d => d.id).sort().join(' ')")
[ "$(jget "b.deliveries.every(d => d.attempts.length === 1 && d.attempts[0].status_code === 200)")" = true ] ||
  die "a delivery took other than one attempt answered 200: ${body:0:1500}"
[ "$(jget "b.deliveries.some(d => d.payload.order_item_status === 'OK')")" = true ] || die "no webhook for OK: ${body:0:1500}"
deliveries "$b_url"
[ "$(jget "b.deliveries.map(d => d.id).sort().join(' ')")" = "$ids" ] || die "b lists other deliveries than a ($ids): ${body:0:1500}"
# got: the receiver's POSTs for the item, their webhook-id headers sorted.
got() {
  http GET "$received"
  jget "b.filter(r => r.body.order_item_uuid === '$item').map(r => r.headers['webhook-id'] + (r.headers['webhook-signature'] ? '' : '(unsigned)')).sort().join(' ')"
}
[ "$(got)" = "$ids" ] || die "the receiver got [$(got)], expected each of [$ids] once, signed"
say "webhook $ids (OK) delivered once, signed, recorded delivered on both instances"

# --- both stop cleanly, and nothing more reaches the receiver ----------------------------------
pm stop -t 10 "$ca" "$cb" >/dev/null || die "podman stop failed"
for c in "$ca" "$cb"; do
  code=$(pm inspect --format '{{.State.ExitCode}}' "$c")
  [ "$code" = 0 ] || die "$c: exit code $code after podman stop (SIGTERM), expected 0"
  logs=$(pm logs "$c" 2>&1)
  [[ $logs != *"$password"* ]] || die "$c: the database's password is in its log"
done
[ "$(got)" = "$ids" ] || die "after the stop the receiver has [$(got)], expected each of [$ids] once"
say "podman stop: both exit 0; the password in neither log; the receiver still has each webhook once"
