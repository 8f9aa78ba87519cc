// Webhooks through `mock-server listen`: the same moves delivered to a receiver on 127.0.0.1 directly
// (an application's registered receiver) and through a listener process (another application's:
// the sandbox -> WebSocket -> listen -> POST to the receiver -> the answer back on the WebSocket),
// in the same sandbox.
// - burst: 1,000 items moved at once (10 orders of 100 items, a scenario run each, asked for
//   together), deliveries per second until the last arrival;
// - one by one: 200 moves, each made once the webhook of the one before arrived: the median and p99
//   from the move (the control call) to the arrival, alternating between the two ways; the
//   difference of the medians is the time a listener adds to a delivery.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort, httpClient, root, startProcess, stop } from './lib.js';
import { receiver } from './webhooks.js';

const CONFIRM = '0f5821c5-2046-11e7-9cc9-06a7e332783f';
const LEAD = { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', musement_newsletter: 'NO', allow_profiling: 'NO', thirdparty_newsletter: 'NO', events_related_newsletter: 'NO' };
const BURST = 1000;
const ONE_BY_ONE = 200;
const now = () => performance.timeOrigin + performance.now();

/** Books `orders` paid orders of `perOrder` items for `application`; their items' uuids, order by order. */
async function book(call, orders, perOrder) {
  const product = new Map();
  const productOf = async (d) => {
    if (!product.has(d)) {
      const day = new Date(Date.UTC(2026, 0, 20 + d)).toISOString().slice(0, 10);
      const [s] = await call('GET', `/api/v3/activities/${CONFIRM}/dates/${day}`);
      product.set(d, s.groups[0].slots[0].products[0].product_id);
    }
    return product.get(d);
  };
  const booked = [];
  for (let k = 0; k < orders; k++) {
    const cart = await call('POST', '/api/v3/carts');
    const items = [];
    // At most 50 per slot and request: two days per 100-item order.
    for (let i = 0; i < perOrder; i++) items.push({ product_identifier: await productOf(perOrder === 1 ? k % 10 : 2 * k + Math.floor(i / 50)), quantity: 1, language: 'en' });
    await call('POST', `/api/v3/carts/${cart.uuid}/items`, items);
    await call('PUT', `/api/v3/carts/${cart.uuid}/customer`, LEAD);
    const order = await call('POST', '/api/v3/orders', { cart_uuid: cart.uuid });
    await call('POST', '/api/v3/payments/no/payment', { uuid: order.uuid });
    booked.push({ uuid: order.uuid, items: order.items.map((x) => x.uuid) });
  }
  return booked;
}

/** `mock-server listen` for `application`, resolved once it says it is ready. */
function listener(origin, application, target) {
  const child = spawn(process.execPath, [join(root, 'dist/bin/mock-server.js'), 'listen', '--url', origin, '--application', application, '--forward-to', target, '--format', 'json'], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`listen not ready: ${err}`)), 30000);
    child.stderr.on('data', (d) => {
      err += d;
      if (/^Ready: /m.test(err)) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.on('exit', (code) => reject(new Error(`listen exited ${code}: ${err}`)));
  });
}

/**
 * One round in one sandbox with one receiver: application bench-direct has it as its registered
 * receiver, bench-listener reaches it through a listener, so that both ways meet the same machine.
 * The bursts go one after the other; the one-by-one moves alternate between the two.
 */
async function once() {
  const hook = await receiver(false, 'lean');
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const target = `http://127.0.0.1:${hook.port}/hook`;
  const { child } = await startProcess(join(root, 'dist/bin/mock-server.js'), ['--port', String(port), '--db', 'memory', '--catalog-size', '0', '--log-level', 'warn'], `${origin}/__admin/health`);
  const clients = [];
  let listen = null;
  try {
    const ways = {};
    for (const via of ['direct', 'listener']) {
      const application = `bench-${via}`;
      const headers = { 'x-service-application': application, 'content-type': 'application/json' };
      const client = httpClient(origin, headers, { connections: 50 });
      clients.push(client);
      const call = async (method, path, body) => {
        const { status, text } = await client.request(method, path, body);
        if (status >= 300) throw new Error(`${method} ${path}: ${status} ${text}`);
        return text ? JSON.parse(text) : null;
      };
      await call('POST', '/__admin/clock', { set: '2026-01-15T10:00:00Z', application });
      const token = await call('POST', '/api/v3/login', { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' });
      headers.authorization = `Bearer ${token.access_token}`;
      if (via === 'direct') await call('PUT', '/__admin/webhooks/config', { application, url: target });
      else listen = await listener(origin, application, target);
      ways[via] = { call, burst: await book(call, BURST / 100, 100), single: (await book(call, ONE_BY_ONE, 1)).flatMap((o) => o.items) };
    }
    const wait = async (keys, limitMs = 60000) => {
      const end = Date.now() + limitMs;
      while (keys.some((k) => !hook.arrivals.has(k)) && Date.now() < end) await new Promise((r) => setTimeout(r, 1));
      if (keys.some((k) => !hook.arrivals.has(k))) throw new Error(`${keys.filter((k) => !hook.arrivals.has(k)).length} of ${keys.length} did not arrive`);
    };
    const out = { direct: {}, listener: {} };
    for (const via of ['direct', 'listener']) {
      const { call, burst } = ways[via];
      const start = now();
      await Promise.all(burst.map((o) => call('POST', '/__admin/scenarios/instant-confirmation/run', { order_uuid: o.uuid })));
      const keys = burst.flatMap((o) => o.items.map((i) => `${i}@2`));
      await wait(keys);
      out[via].burst_deliveries_per_s = BURST / ((Math.max(...keys.map((k) => hook.arrivals.get(k))) - start) / 1000);
    }
    const latencies = { direct: [], listener: [] };
    for (let i = 0; i < ONE_BY_ONE; i++) {
      for (const via of ['direct', 'listener']) {
        const uuid = ways[via].single[i];
        const before = now();
        await ways[via].call('POST', `/__admin/order-items/${uuid}/status`, { status: 'OK' });
        await wait([`${uuid}@2`]);
        latencies[via].push(hook.arrivals.get(`${uuid}@2`) - before);
      }
    }
    for (const via of ['direct', 'listener']) {
      const sorted = latencies[via].sort((a, b) => a - b);
      Object.assign(out[via], { one_by_one_p50_ms: sorted[Math.floor(sorted.length / 2)], one_by_one_p99_ms: sorted[Math.floor(sorted.length * 0.99)] });
    }
    return out;
  } finally {
    if (listen) await stop(listen);
    for (const c of clients) c.close();
    await stop(child);
    hook.server.close();
  }
}

const ROUNDS = 3;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function run() {
  const runs = { direct: [], listener: [] };
  for (let i = 0; i < ROUNDS; i++) {
    const round = await once();
    runs.direct.push(round.direct);
    runs.listener.push(round.listener);
  }
  const summary = (rs) => Object.fromEntries(Object.keys(rs[0]).map((k) => [k, median(rs.map((r) => r[k]))]));
  const [direct, through] = [summary(runs.direct), summary(runs.listener)];
  return {
    [`direct to the receiver, median of ${ROUNDS}`]: direct,
    [`through one listener, median of ${ROUNDS}`]: through,
    'added by the listener': { one_by_one_p50_ms: through.one_by_one_p50_ms - direct.one_by_one_p50_ms, one_by_one_p99_ms: through.one_by_one_p99_ms - direct.one_by_one_p99_ms },
  };
}
