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

const p99 = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.99))] ?? 0;
};

export async function run({ duration = 10, clients = 20 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-booking-'));
  const db = join(dir, 'state.json');
  const stateMb = preload(db);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}/api/v3`;
  const { child } = await startProcess(join(root, 'dist/bin/mock-server.js'), ['--port', String(port), '--db', db, '--catalog-size', '20', '--log-level', 'warn'], `http://127.0.0.1:${port}/__admin/health`);
  const headers = { 'x-service-application': APP, 'content-type': 'application/json' };
  const client = httpClient(base, headers, { connections: clients });
  const call = async (method, path, body) => {
    const { status, text } = await client.request(method, path, body);
    if (status !== 200) throw new Error(`${method} ${path}: ${status} ${text}`);
    return JSON.parse(text);
  };
  try {
    const token = await call('POST', '/login', { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' });
    headers.authorization = `Bearer ${token.access_token}`;
    const day = new Date(Date.now() + 7 * 86400000).toISOString().slice(0, 10);
    const [schedule] = await call('GET', `/activities/${INSTANT}/dates/${day}`);
    const product = schedule.groups[0].slots[0].products[0].product_id;
    const times = Object.fromEntries(STEPS.map((s) => [s, []]));
    let bookings = 0;
    let errors = 0;
    const timed = async (step, fn) => {
      const t0 = performance.now();
      const out = await fn();
      times[step].push(performance.now() - t0);
      return out;
    };
    const end = Date.now() + duration * 1000;
    const worker = async () => {
      while (Date.now() < end) {
        try {
          const cart = await timed('cart', () => call('POST', '/carts'));
          await timed('item', () => call('POST', `/carts/${cart.uuid}/items`, [{ type: 'musement', product_identifier: product, quantity: 1 }]));
          await timed('customer', () => call('PUT', `/carts/${cart.uuid}/customer`, LEAD));
          const order = await timed('order', () => call('POST', '/orders', { cart_uuid: cart.uuid }));
          const paid = await timed('payment', () => call('POST', '/payments/no/payment', { uuid: order.uuid }));
          if (paid.items[0].status !== 'OK') throw new Error('not confirmed');
          bookings++;
        } catch (e) {
          if (errors++ === 0) console.error(`first failed booking: ${e.message}`);
        }
      }
    };
    const t0 = performance.now();
    await Promise.all(Array.from({ length: clients }, worker));
    const seconds = (performance.now() - t0) / 1000;
    return {
      'bookings, 20 clients, file store': { state_mb: stateMb, bookings_per_s: bookings / seconds, bookings, errors },
      'p99 per step (ms)': Object.fromEntries(STEPS.map((s) => [s, p99(times[s])])),
    };
  } finally {
    client.close();
    await stop(child);
    rmSync(dir, { recursive: true, force: true });
  }
}
