// State store: acknowledged writes per second on a file store that already holds 10,000 orders'
// worth of state, and a kill -9 check (every write the server answered is there after a restart).
// The writes are POST /login: each one stores a token in the tenant and is answered only once the
// write is on disk. Run alone: `npm run build && BENCH_DURATION=10 node -e "import('./bench/store.js').then(m => m.run({duration: 10})).then(console.log)"`.
import { existsSync, mkdtempSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { freePort, root, startProcess, stop } from './lib.js';

const APP = 'bench';
const HEADERS = { 'x-service-application': APP, 'content-type': 'application/json' };
const LOGIN_BODY = JSON.stringify({ client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' });
const cli = join(root, 'dist/bin/mock-server.js');
const self = join(root, 'bench/store.js');

/** Until the CLI exists: `node bench/store.js --serve PORT DB` builds the app from dist/ and listens. */
async function serve(port, db) {
  const imp = (p) => import(pathToFileURL(join(root, 'dist/src', p)).href);
  const [{ buildApp }, { defaults }, { systemClock }, { buildCatalog }, { createStore }] = await Promise.all([
    imp('app.js'), imp('config.js'), imp('clock.js'), imp('seed/catalog.js'), imp('store/index.js'),
  ]);
  const config = { ...defaults, port, db, catalogSize: 20 };
  const app = await buildApp({
    config,
    clock: systemClock(),
    catalog: await buildCatalog({ seed: 1, catalogSize: 20, fixtures: null }),
    store: await createStore(db),
  });
  await app.listen({ port, host: '127.0.0.1' });
}

function startServer(port, db, env = {}) {
  const usesCli = existsSync(cli);
  const [script, args] = usesCli
    ? [cli, ['--port', String(port), '--db', db, '--catalog-size', '20', '--log-level', 'warn']]
    : [self, ['--serve', String(port), db]];
  return startProcess(script, args, `http://127.0.0.1:${port}/__admin/health`, { env }).then((s) => ({ ...s, usesCli }));
}

/**
 * A state file as the booking flow will leave it: 10,000 paid orders with two items each and their
 * carts, in the tenant the load writes to (so a flush could not skip it), about 15 MB.
 */
export function preload(file, orders = 10000) {
  const id = (prefix, i) => `${prefix}${String(i).padStart(7, '0')}-0000-4000-8000-000000000000`;
  const tenant = { tokens: {}, carts: {}, orders: {}, webhookConfig: null, deliveries: {}, journal: {}, counters: { order: orders } };
  for (let i = 0; i < orders; i++) {
    const at = new Date(Date.UTC(2026, 0, 1) + i * 60000).toISOString();
    const customer = { firstname: 'Ada', lastname: 'Lovelace', email: `ada${i}@example.com`, musement_newsletter: 'NO', allow_profiling: 'NO', thirdparty_newsletter: 'NO', events_related_newsletter: 'NO' };
    const items = [1, 2].map((k) => ({
      uuid: id('b', i * 10 + k), cart_item_uuid: id('c', i * 10 + k), product_identifier: `prod-${i % 500}-${k}`,
      activity_uuid: '5a002d99-781b-479b-9a9d-9efadfd34ec2', date: '2026-02-01 10:00', quantity: 2, language: 'en',
      status: 'OK', version: 2, created: at, updated: at, price: { currency: 'EUR', value: 50 }, participants: [],
    }));
    tenant.carts[id('a', i)] = { uuid: id('a', i), items: items.map((x) => x.cart_item_uuid), customer, created: at, status: 'closed' };
    tenant.orders[id('d', i)] = { uuid: id('d', i), id: String(i + 1), identifier: `MUS${1000000 + i}`, cart_uuid: id('a', i), status: 'PAID', created: at, updated: at, version: 3, customer, items, market: 'us', source: 'bench' };
  }
  writeFileSync(file, JSON.stringify({ version: 1, tenants: { [APP]: tenant } }));
  return statSync(file).size / 1e6;
}

/** autocannon POSTing /login; `onToken` sees the token of every answered (acknowledged) login. */
function loginLoad(base, { duration, connections = 50, onToken }) {
  let instance;
  const done = new Promise((resolve, reject) => {
    instance = autocannon(
      {
        url: base,
        connections,
        duration,
        requests: [
          {
            method: 'POST',
            path: '/api/v3/login',
            headers: HEADERS,
            body: LOGIN_BODY,
            onResponse: onToken
              ? (status, body) => {
                  if (status === 200) onToken(JSON.parse(body).access_token);
                }
              : undefined,
          },
        ],
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
  return { instance, done };
}

/** How many of `tokens` the server accepts (a bearer read answers 200 only for a stored token). */
async function countPresent(base, tokens, concurrency = 32) {
  let present = 0;
  let next = 0;
  const worker = async () => {
    while (next < tokens.length) {
      const token = tokens[next++];
      const res = await fetch(`${base}/api/v3/currencies`, { headers: { 'x-service-application': APP, authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      if (res.status === 200) present++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return present;
}

export async function run({ duration = 10 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-store-'));
  mkdirSync(dir, { recursive: true });
  const db = join(dir, 'state.json');
  const results = {};
  try {
    const mb = preload(db);
    // Throughput: 50 clients logging in (one token written per request) for `duration` seconds.
    let port = await freePort();
    let server = await startServer(port, db);
    let base = `http://127.0.0.1:${port}`;
    const r = await loginLoad(base, { duration }).done;
    results['POST /login, 50 clients, file store'] = {
      state_mb: mb,
      writes_per_s: r.requests.average,
      p99_ms: r.latency.p99,
      p50_ms: r.latency.p50,
      non2xx: r.non2xx,
      errors: r.errors + r.timeouts,
      startup_ms: server.startupMs,
    };
    await stop(server.child);

    // kill -9 mid-load, restart on the same file, check every answered login's token. The log is
    // folded into the state file every 256 KB, so that the kill lands among compactions.
    port = await freePort();
    server = await startServer(port, db, { MOCK_SERVER_COMPACT_BYTES: String(256 * 1024) });
    base = `http://127.0.0.1:${port}`;
    const acknowledged = [];
    const load = loginLoad(base, { duration: Math.max(4, duration), onToken: (t) => acknowledged.push(t) });
    await new Promise((res) => setTimeout(res, Math.max(2000, (duration * 1000) / 2)));
    const { compactions } = (await (await fetch(`${base}/__admin/health`)).json()).store;
    server.child.kill('SIGKILL');
    const killedAt = acknowledged.length;
    load.instance.stop();
    await load.done;
    await new Promise((res) => server.child.exitCode !== null || server.child.signalCode !== null ? res() : server.child.once('exit', res));
    port = await freePort();
    const restarted = await startServer(port, db);
    base = `http://127.0.0.1:${port}`;
    const present = await countPresent(base, acknowledged);
    await stop(restarted.child);
    results['kill -9 during load, compacting every 256 KB of log'] = {
      acknowledged: acknowledged.length,
      acknowledged_before_kill: killedAt,
      compactions_before_kill: compactions,
      present_after_restart: present,
      missing: acknowledged.length - present,
      restart_ms: restarted.startupMs,
    };
    results.server = { via: server.usesCli ? 'dist/bin/mock-server.js' : 'bench/store.js --serve (buildApp from dist/)' };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

if (process.argv[2] === '--serve') {
  await serve(Number(process.argv[3]), process.argv[4]);
}
