// Two app instances, each with its own PostgreSQL store on one database: any request may land on
// either, and sees every write acknowledged before it began (read-your-writes across instances).
import t, { type Test } from 'tap';
import type { FastifyInstance } from 'fastify';
import { systemClock } from '../../src/clock.js';
import { createStore } from '../../src/store/index.js';
import { bookOrder, CONFIRM, overInjectInTurn } from '../book-order.js';
import { buildTestApp } from '../helper.js';
import { startPostgres } from '../pg/server.js';
import { buildWebhookApp, startReceiver } from '../webhooks/receiver.js';

const server = await startPostgres(t);
let n = 0;

/** `count` instances on one fresh database. */
async function instances(t: Test, count = 2, opts: { realClock?: boolean } = {}): Promise<FastifyInstance[]> {
  const url = await server.createDatabase(`app_${++n}`);
  const apps: FastifyInstance[] = [];
  for (let i = 0; i < count; i++) {
    const app = await buildTestApp({ store: await createStore(url), ...(opts.realClock ? { clock: systemClock() } : {}) });
    t.teardown(() => app.close());
    apps.push(app);
  }
  return apps;
}

const H = (application: string) => ({ 'x-service-application': application });

t.test('one booking whose steps alternate between two instances', async (t) => {
  const [a, b] = (await instances(t)) as [FastifyInstance, FastifyInstance];
  // login on a, availability on b, cart on a, item on b, customer on a, order on b, payment on a.
  const order = await bookOrder(overInjectInTurn([a, b], 'shop'));
  for (const app of [a, b]) {
    const res = await app.inject({ url: `/api/v3/orders/${order.uuid}`, headers: H('shop') });
    t.equal(res.statusCode, 200);
    t.match(res.json(), { uuid: order.uuid, identifier: order.identifier, items: [{ status: 'PENDING' }] });
  }
  const moved = await b.inject({ method: 'POST', url: `/__admin/order-items/${order.items[0]?.uuid}/status`, payload: { status: 'OK' } });
  t.equal(moved.statusCode, 200, 'the control API of the other instance finds the item');
  const seen = await a.inject({ url: `/api/v3/orders/${order.uuid}`, headers: H('shop') });
  t.equal(seen.json().items[0].status, 'OK', 'and the first sees the move at once');
});

t.test('concurrent writes to one application on both instances are serialized', async (t) => {
  const [a, b] = (await instances(t)) as [FastifyInstance, FastifyInstance];
  const created = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).inject({ method: 'POST', url: '/api/v3/carts', headers: H('busy') })));
  t.same(new Set(created.map((r) => r.statusCode)), new Set([200]), 'every creation acknowledged');
  const uuids = created.map((r) => r.json().uuid as string);
  t.equal(new Set(uuids).size, 200);
  for (const app of [a, b]) {
    const read = await Promise.all(uuids.map((u) => app.inject({ url: `/api/v3/carts/${u}`, headers: H('busy') })));
    t.equal(read.filter((r) => r.statusCode === 200).length, 200, 'each cart read back from each instance');
  }
  // Order numbers come from a counter in the application's state: never given twice.
  const orders = await Promise.all(Array.from({ length: 12 }, (_, i) => bookOrder(overInjectInTurn(i % 2 ? [a, b] : [b, a], 'busy'))));
  const ids = orders.map((o) => o.identifier);
  t.equal(new Set(ids).size, 12, `order identifiers are unique: ${ids.join(' ')}`);
});

t.test('the same cart ordered on both instances at once makes one order', async (t) => {
  const [a, b] = (await instances(t)) as [FastifyInstance, FastifyInstance];
  const call = overInjectInTurn([a], 'race');
  await call('POST', '/login', { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' });
  const [s] = await call('GET', `/activities/${CONFIRM}/dates/2026-01-20`);
  const cart = await call('POST', '/carts');
  await call('POST', `/carts/${cart.uuid}/items`, [{ product_identifier: s.groups[0].slots[0].products[0].product_id, quantity: 1, language: 'en' }]);
  await call('PUT', `/carts/${cart.uuid}/customer`, { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', musement_newsletter: 'NO', allow_profiling: 'NO', thirdparty_newsletter: 'NO', events_related_newsletter: 'NO' });
  const tries = await Promise.all([a, b, a, b].map((app) => app.inject({ method: 'POST', url: '/api/v3/orders', headers: { ...H('race'), 'content-type': 'application/json' }, payload: { cart_uuid: cart.uuid } })));
  t.same(tries.map((r) => r.statusCode).sort(), [200, 423, 423, 423], 'one order, the others find the cart locked');
});

t.test('webhooks on PostgreSQL: a move is delivered once and recorded delivered in the database', async (t) => {
  const rx = await startReceiver();
  t.teardown(rx.close);
  const url = await server.createDatabase(`app_${++n}`);
  const app = await buildWebhookApp({ store: await createStore(url), config: { webhookUrl: rx.url } });
  t.teardown(() => app.close());
  const order = await bookOrder(overInjectInTurn([app], 'hooks'));
  const item = order.items[0]?.uuid;
  t.equal((await app.inject({ method: 'POST', url: `/__admin/order-items/${item}/status`, payload: { status: 'OK' } })).statusCode, 200);
  const delivered = async () => {
    const res = await app.inject({ url: `/__admin/webhooks/deliveries?order_item_uuid=${item}` });
    return (res.json().deliveries as Array<{ state: string }>).filter((d) => d.state === 'delivered').length;
  };
  for (let i = 0; i < 100 && (await delivered()) < 1; i++) await new Promise((r) => setTimeout(r, 50));
  t.equal(await delivered(), 1, 'recorded delivered');
  await new Promise((r) => setTimeout(r, 300));
  t.equal(rx.received.filter((r) => r.body.includes(item as string)).length, 1, 'received once');
  const other = await createStore(url);
  t.teardown(() => other.close());
  const saved = Object.values(other.tenant('hooks').deliveries) as unknown as Array<{ state: string; attempts: unknown[] }>;
  t.same(saved.map((d) => [d.state, d.attempts.length]), [['delivered', 1]], 'the attempt is in the database');
});

t.test('a clock moved on one instance moves the other', async (t) => {
  const [a, b] = (await instances(t, 2, { realClock: true })) as [FastifyInstance, FastifyInstance];
  const moved = await a.inject({ method: 'POST', url: '/__admin/clock', payload: { advance: 'P1D' } });
  t.equal(moved.statusCode, 200);
  const clock = (await b.inject({ url: '/__admin/clock' })).json();
  t.ok(Math.abs(clock.offset_ms - 86_400_000) < 5000, `offset ${clock.offset_ms}`);
});

t.test('health names the store; a database that goes away is 503, then the service resumes by itself', async (t) => {
  const memory = await buildTestApp();
  t.teardown(() => memory.close());
  t.match((await memory.inject({ url: '/__admin/health' })).json(), { status: 'ok', store: { kind: 'memory', writes: Number } });

  const [a, b] = (await instances(t)) as [FastifyInstance, FastifyInstance];
  const up = await a.inject({ url: '/__admin/health' });
  t.equal(up.statusCode, 200);
  t.match(up.json(), { status: 'ok', store: { kind: 'postgres', database: 'up', location: /^postgres:\/\/mock:\*\*\*@127\.0\.0\.1:\d+\/app_\d+$/ } });
  const cart = (await b.inject({ method: 'POST', url: '/api/v3/carts', headers: H('outage') })).json();

  await server.stopServer();
  const password = new URL(server.url).password;
  const down = await a.inject({ url: '/__admin/health' });
  t.equal(down.statusCode, 503, 'a load balancer stops sending traffic here');
  t.match(down.json(), { status: 'unavailable', store: { kind: 'postgres', database: 'down' } });
  for (const [method, url] of [['POST', '/api/v3/carts'], ['GET', `/api/v3/carts/${cart.uuid}`]] as const) {
    const started = Date.now();
    const res = await a.inject({ method, url, headers: H('outage') });
    t.equal(res.statusCode, 503, `${method} ${url} while the database is away`);
    t.match(res.json(), { code: '0', message: /^The database postgres:\/\/mock:\*\*\*@.* (cannot be reached|did not answer)/ });
    t.equal(res.headers['retry-after'], '1');
    t.notMatch(res.body, password);
    t.ok(Date.now() - started < 6000, 'answered within the connection timeout');
  }
  t.equal((await a.inject({ url: '/__admin/orders' })).statusCode, 503, 'the control API too');
  const catalog = await a.inject({ url: `/api/v3/activities/${CONFIRM}`, headers: H('outage') });
  t.equal(catalog.statusCode, 200, 'the catalog needs no database');

  await server.startServer();
  let back = 0;
  for (let i = 0; i < 100 && back !== 200; i++) {
    back = (await a.inject({ method: 'POST', url: '/api/v3/carts', headers: H('outage') })).statusCode;
    if (back !== 200) await new Promise((r) => setTimeout(r, 100));
  }
  t.equal(back, 200, 'writes resume without a restart');
  // B may still be in the second in which it fails at once after a connection it could not make
  // (store/postgres/db.ts): it recovers within it, without a restart.
  const readOnB = Date.now();
  let read = 0;
  for (let i = 0; i < 30 && read !== 200; i++) {
    read = (await b.inject({ url: `/api/v3/carts/${cart.uuid}`, headers: H('outage') })).statusCode;
    if (read !== 200) await new Promise((r) => setTimeout(r, 100));
  }
  t.equal(read, 200, 'and reads, on both instances');
  t.ok(Date.now() - readOnB < 1500, `B answered again within the second of its fast failures (${Date.now() - readOnB} ms)`);
  t.equal((await a.inject({ url: '/__admin/health' })).statusCode, 200);
  // The LISTEN connection is back too: a reset on one instance reaches the other.
  const seen: Array<string | null> = [];
  a.store.onReset((app) => seen.push(app));
  let told = false;
  for (let i = 0; i < 100 && !told; i++) {
    await b.store.update('probe', (tn) => void (tn.counters.n = i));
    await a.store.sync!('probe');
    // Only what the notification tells counts: a's next sync would find the reset by itself.
    seen.length = 0;
    await b.store.reset('probe');
    await new Promise((r) => setTimeout(r, 200));
    told = seen.includes('probe');
  }
  t.ok(told, 'resets are heard again');
});
