// Complete bookings per second (cart, item, customer, order, payment) with 20 concurrent clients on a
// file store that already holds 10,000 orders, and the p99 of each step.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, httpClient, root, startProcess, stop } from './lib.js';
import { preload } from './store.js';

const APP = 'bench';
const INSTANT = '4e451a8a-2ee5-493f-aa12-a39f13d7253e';
const LEAD = { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', musement_newsletter: 'NO', allow_profiling: 'NO', thirdparty_newsletter: 'NO', events_related_newsletter: 'NO' };
const STEPS = ['cart', 'item', 'customer', 'order', 'payment'];

export const p99 = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.99))] ?? 0;
};

/**
 * `clients` clients booking end to end for `duration` seconds against the API at `bases` (…/api/v3):
 * with several (instances on one database), each request goes to the next one in turn, as a
 * round-robin load balancer would send it, or with `sticky` to the one its application hashes to
 * (a balancer hashing X-Service-Application). All in application "bench", or client i in
 * application "bench-<i mod applications>" (writes to one application are serialized; to several,
 * not). Answers bookings/s and the p99 of each step.
 */
export async function bookings(bases, { duration = 10, clients = 20, applications = 0, sticky = false } = {}) {
  const headers = { 'content-type': 'application/json' };
  const pool = bases.map((base) => httpClient(base, headers, { connections: clients }));
  let turn = 0;
  const names = applications ? Array.from({ length: applications }, (_, i) => `${APP}-${i}`) : [APP];
  const tokens = new Map();
  const call = async (application, method, path, body) => {
    const auth = tokens.get(application);
    const more = { 'x-service-application': application, ...(auth ? { authorization: auth } : {}) };
    const to = sticky ? Math.max(0, names.indexOf(application)) : turn++;
    const { status, text } = await pool[to % pool.length].request(method, path, body, more);
    if (status !== 200) throw new Error(`${method} ${path}: ${status} ${text}`);
    return JSON.parse(text);
  };
  try {
    for (const a of names) {
      const token = await call(a, 'POST', '/login', { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' });
      tokens.set(a, `Bearer ${token.access_token}`);
    }
    const day = new Date(Date.now() + 7 * 86400000).toISOString().slice(0, 10);
    const [schedule] = await call(APP, 'GET', `/activities/${INSTANT}/dates/${day}`);
    const product = schedule.groups[0].slots[0].products[0].product_id;
    const times = Object.fromEntries(STEPS.map((s) => [s, []]));
    let booked = 0;
    let errors = 0;
    const timed = async (step, fn) => {
      const t0 = performance.now();
      const out = await fn();
      times[step].push(performance.now() - t0);
      return out;
    };
    const end = Date.now() + duration * 1000;
    const worker = async (_, i) => {
      const a = names[i % names.length];
      while (Date.now() < end) {
        try {
          const cart = await timed('cart', () => call(a, 'POST', '/carts'));
          await timed('item', () => call(a, 'POST', `/carts/${cart.uuid}/items`, [{ type: 'musement', product_identifier: product, quantity: 1 }]));
          await timed('customer', () => call(a, 'PUT', `/carts/${cart.uuid}/customer`, LEAD));
          const order = await timed('order', () => call(a, 'POST', '/orders', { cart_uuid: cart.uuid }));
          const paid = await timed('payment', () => call(a, 'POST', '/payments/no/payment', { uuid: order.uuid }));
          if (paid.items[0].status !== 'OK') throw new Error('not confirmed');
          booked++;
        } catch (e) {
          if (errors++ === 0) console.error(`first failed booking: ${e.message}`);
        }
      }
    };
    const t0 = performance.now();
    await Promise.all(Array.from({ length: clients }, worker));
    const seconds = (performance.now() - t0) / 1000;
    return { bookings_per_s: booked / seconds, bookings: booked, seconds, errors, times, p99: Object.fromEntries(STEPS.map((s) => [s, p99(times[s])])) };
  } finally {
    for (const c of pool) c.close();
  }
}

export async function run({ duration = 10, clients = 20 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-booking-'));
  const db = join(dir, 'state.json');
  const stateMb = preload(db);
  const port = await freePort();
  const { child } = await startProcess(join(root, 'dist/bin/mock-server.js'), ['--port', String(port), '--db', db, '--catalog-size', '20', '--log-level', 'warn'], `http://127.0.0.1:${port}/__admin/health`);
  try {
    const r = await bookings([`http://127.0.0.1:${port}/api/v3`], { duration, clients });
    return {
      'bookings, 20 clients, file store': { state_mb: stateMb, bookings_per_s: r.bookings_per_s, bookings: r.bookings, errors: r.errors },
      'p99 per step (ms)': r.p99,
    };
  } finally {
    await stop(child);
    rmSync(dir, { recursive: true, force: true });
  }
}
