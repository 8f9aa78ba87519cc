// Webhook delivery: 1,000 order items moved at once (PENDING -> OK through a scenario run on each
// order), delivered to a receiver on 127.0.0.1; deliveries per second and the p99 from the move to
// the delivery. Then the same with a receiver that fails every first attempt: the clock is advanced
// past the first retry and every delivery must arrive, none twice after its 200.
import { createServer } from 'node:http';
import { join } from 'node:path';
import { freePort, root, startProcess, stop } from './lib.js';

const CONFIRM = '0f5821c5-2046-11e7-9cc9-06a7e332783f';
const LEAD = { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', musement_newsletter: 'NO', allow_profiling: 'NO', thirdparty_newsletter: 'NO', events_related_newsletter: 'NO' };
const ITEMS = 1000;

function receiver(failFirst) {
  const arrivals = new Map(); // key -> time of the 200
  const seen = new Set();
  let duplicates = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const p = JSON.parse(body);
      const key = `${p.order_item_uuid}@${p.order_item_version}`;
      if (failFirst && !seen.has(key)) {
        seen.add(key);
        res.writeHead(500).end();
        return;
      }
      if (arrivals.has(key)) duplicates++;
      else arrivals.set(key, performance.now());
      res.writeHead(200).end();
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, arrivals, dup: () => duplicates, port: server.address().port })));
}

async function once(failFirst) {
  const hook = await receiver(failFirst);
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const { child } = await startProcess(join(root, 'dist/bin/mock-server.js'), ['--port', String(port), '--db', 'memory', '--catalog-size', '0', '--log-level', 'warn', '--webhook-url', `http://127.0.0.1:${hook.port}/hook`], `${origin}/__admin/health`);
  const headers = { 'x-service-application': 'bench', 'content-type': 'application/json' };
  const call = async (method, path, body) => {
    const res = await fetch(origin + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
  try {
    await call('POST', '/__admin/clock', { set: '2026-01-15T10:00:00Z' });
    const token = await call('POST', '/api/v3/login', { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' });
    headers.authorization = `Bearer ${token.access_token}`;
    const orders = [];
    for (let k = 0; k < ITEMS / 100; k++) {
      const cart = await call('POST', '/api/v3/carts');
      const items = [];
      for (const d of [2 * k, 2 * k + 1]) {
        const day = new Date(Date.UTC(2026, 0, 20 + d)).toISOString().slice(0, 10);
        const [s] = await call('GET', `/api/v3/activities/${CONFIRM}/dates/${day}`);
        for (let i = 0; i < 50; i++) items.push({ product_identifier: s.groups[0].slots[0].products[0].product_id, quantity: 1, language: 'en' });
      }
      await call('POST', `/api/v3/carts/${cart.uuid}/items`, items);
      await call('PUT', `/api/v3/carts/${cart.uuid}/customer`, LEAD);
      const order = await call('POST', '/api/v3/orders', { cart_uuid: cart.uuid });
      await call('POST', '/api/v3/payments/no/payment', { uuid: order.uuid });
      orders.push(order.uuid);
    }
    const start = performance.now();
    await Promise.all(orders.map((uuid) => call('POST', '/__admin/scenarios/instant-confirmation/run', { order_uuid: uuid })));
    if (failFirst) {
      // Every first attempt failed; the first retry is due 10 s later on the server clock.
      await new Promise((r) => setTimeout(r, 500));
      await call('POST', '/__admin/clock', { advance: 'PT11S' });
    }
    const deadline = Date.now() + 30000;
    while (hook.arrivals.size < ITEMS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    const latencies = [...hook.arrivals.values()].map((t) => t - start).sort((a, b) => a - b);
    const last = latencies.at(-1) ?? 0;
    return {
      delivered: hook.arrivals.size,
      deliveries_per_s: hook.arrivals.size / (last / 1000),
      p99_move_to_delivery_ms: latencies[Math.floor(latencies.length * 0.99)] ?? 0,
      sent_twice_after_200: hook.dup(),
    };
  } finally {
    await stop(child);
    hook.server.close();
  }
}

export async function run() {
  return {
    '1,000 items moved at once, receiver answers 200': await once(false),
    'receiver fails every first attempt, clock advanced past the first retry': await once(true),
  };
}
