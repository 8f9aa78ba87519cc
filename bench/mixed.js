// Mixed load on a 100 MB state file while the state file is being compacted: catalog reads
// (autocannon, 20 connections) beside complete bookings (10 scripted clients), and the worst
// latency any request saw. MOCK_SERVER_COMPACT_BYTES makes the server fold its log into the state
// file every few MB, so that compactions of the 100 MB file run during the whole load instead of
// once per 100 MB of log. The same read load against a bare Fastify server is the yardstick.
// Run alone: `npm run build && node bench/run.js mixed`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { APP_HEADER, freePort, httpClient, root, rssMb, startProcess, stop } from './lib.js';
import { preload } from './store.js';

const INSTANT = '4e451a8a-2ee5-493f-aa12-a39f13d7253e';
const LEAD = { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', musement_newsletter: 'NO', allow_profiling: 'NO', thirdparty_newsletter: 'NO', events_related_newsletter: 'NO' };
const READS = ['/api/v3/activities?limit=20', `/api/v3/activities/${INSTANT}`, '/api/v3/cities?limit=10', '/api/v3/currencies'];

/** autocannon over READS for `duration` s; resolves with rps, p99 and the maximum latency. */
function reads(base, duration) {
  let i = 0;
  return new Promise((resolve, reject) => {
    autocannon(
      { url: base, connections: 20, duration, headers: APP_HEADER, requests: [{ setupRequest: (req) => ({ ...req, path: READS[i++ % READS.length] }) }] },
      (err, r) => (err ? reject(err) : resolve({ rps: r.requests.average, p99: r.latency.p99, p999: r.latency.p99_9, max: r.latency.max, non2xx: r.non2xx, errors: r.errors + r.timeouts })),
    );
  });
}

/** `clients` booking loops until `end`; resolves with bookings, errors and the slowest request. */
async function bookings(base, clients, end) {
  const headers = { 'x-service-application': 'bench', 'content-type': 'application/json' };
  const client = httpClient(base, headers, { connections: clients });
  let max = 0;
  const times = [];
  const call = async (method, path, body) => {
    const t0 = performance.now();
    const { status, text } = await client.request(method, path, body);
    const took = performance.now() - t0;
    max = Math.max(max, took);
    times.push(took);
    if (status !== 200) throw new Error(`${method} ${path}: ${status} ${text.slice(0, 200)}`);
    return JSON.parse(text);
  };
  const token = await call('POST', '/login', { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' });
  headers.authorization = `Bearer ${token.access_token}`;
  const day = new Date(Date.now() + 7 * 86400000).toISOString().slice(0, 10);
  const [schedule] = await call('GET', `/activities/${INSTANT}/dates/${day}`);
  const product = schedule.groups[0].slots[0].products[0].product_id;
  let done = 0;
  let errors = 0;
  const worker = async () => {
    while (Date.now() < end) {
      try {
        const cart = await call('POST', '/carts');
        await call('POST', `/carts/${cart.uuid}/items`, [{ type: 'musement', product_identifier: product, quantity: 1 }]);
        await call('PUT', `/carts/${cart.uuid}/customer`, LEAD);
        const order = await call('POST', '/orders', { cart_uuid: cart.uuid });
        await call('POST', '/payments/no/payment', { uuid: order.uuid });
        done++;
      } catch (e) {
        if (errors++ === 0) console.error(`first failed booking: ${e.message}`);
      }
    }
  };
  max = 0;
  times.length = 0;
  await Promise.all(Array.from({ length: clients }, worker));
  client.close();
  times.sort((a, b) => a - b);
  return { bookings: done, errors, max, p999: times[Math.floor(times.length * 0.999)] ?? 0 };
}

const health = async (origin) => (await (await fetch(`${origin}/__admin/health`)).json()).store;

/** The mixed load for `seconds` (at least 20) on a state file of about 115 MB; resident memory sampled every second. */
export async function run({ duration = 10, seconds: asked } = {}) {
  const seconds = Math.max(20, asked ?? duration);
  const dir = mkdtempSync(join(tmpdir(), 'bench-mixed-'));
  const db = join(dir, 'state.json');
  try {
    const stateMb = preload(db, 66_000);
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const env = { MOCK_SERVER_COMPACT_BYTES: String(4 * 1024 * 1024) };
    const { child } = await startProcess(join(root, 'dist/bin/mock-server.js'), ['--port', String(port), '--db', db, '--catalog-size', '20', '--log-level', 'warn'], `${origin}/__admin/health`, { timeoutMs: 120000, env });
    let mock;
    try {
      await reads(origin, 3);
      const before = await health(origin);
      const end = Date.now() + seconds * 1000;
      let peakRss = 0;
      const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMb(child.pid))), 1000);
      const [r, b] = await Promise.all([reads(origin, seconds), bookings(`${origin}/api/v3`, 10, end)]).finally(() => clearInterval(sampler));
      const after = await health(origin);
      mock = { ...r, ...b, rss: rssMb(child.pid), peakRss, compactions: after.compactions - before.compactions, max: Math.max(r.max, b.max), readMax: r.max, bookingMax: b.max, readP999: r.p999, bookingP999: b.p999 };
    } finally {
      await stop(child);
    }
    // The yardstick: the same reads, answered with the same bodies by a bare Fastify server.
    const bodies = {};
    const mockAgain = await startProcess(join(root, 'dist/bin/mock-server.js'), ['--port', String(port), '--db', 'memory', '--catalog-size', '20', '--log-level', 'warn'], `${origin}/__admin/health`);
    for (const p of READS) bodies[p] = await (await fetch(origin + p, { headers: APP_HEADER })).text();
    await stop(mockAgain.child);
    writeFileSync(join(dir, 'bodies.json'), JSON.stringify(bodies));
    const bport = await freePort();
    const baseline = await startProcess(join(root, 'bench/baseline.js'), [String(bport), join(dir, 'bodies.json')], `http://127.0.0.1:${bport}/__admin/health`);
    let bare;
    try {
      await reads(`http://127.0.0.1:${bport}`, 3);
      bare = await reads(`http://127.0.0.1:${bport}`, seconds);
    } finally {
      await stop(baseline.child);
    }
    return {
      [`mixed load for ${seconds} s, ${stateMb.toFixed(0)} MB state, compacting every 4 MB of log`]: {
        compactions: mock.compactions,
        max_latency_ms: mock.max,
        read_max_ms: mock.readMax,
        booking_max_ms: mock.bookingMax,
        read_p99_ms: mock.p99,
        read_p999_ms: mock.readP999,
        booking_p999_ms: mock.bookingP999,
        peak_rss_mb: mock.peakRss,
        rss_per_state_mb: mock.peakRss / stateMb,
        reads_per_s: mock.rps,
        bookings: mock.bookings,
        errors: mock.errors,
        non2xx: mock.non2xx,
        rss_mb: mock.rss,
      },
      'bare Fastify, same reads alone': { max_latency_ms: bare.max, read_p99_ms: bare.p99, reads_per_s: bare.rps, ratio_of_max: mock.max / bare.max },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
