// Every store.update() function run twice, the first run undone (test/rerun.ts), as an optimistic
// write on PostgreSQL does when its cached tenant was stale: what a client sees must be what one run
// gives. Some cases also change the tenant between the runs, as another instance's write would.
import t, { type Test } from 'tap';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { defaults, type Config } from '../src/config.js';
import { fixedClock } from '../src/clock.js';
import { loggerOptions } from '../src/logging.js';
import { createStore, type Store, type Tenant } from '../src/store/index.js';
import type { Delivery } from '../src/webhooks/delivery.js';
import type { Report } from '../src/report/index.js';
import { bookOrder, overInject } from './book-order.js';
import { testCatalog } from './helper.js';
import { startPostgres, type Postgres } from './pg/server.js';
import { rerunStore } from './rerun.js';
import { tempDir } from './tmp.js';
import { until } from './until.js';
import { startReceiver } from './webhooks/receiver.js';

const APP = 'twice';
const H = { 'x-service-application': APP };
/** Its item is OK once paid (no supplier confirmation to wait for). */
const INSTANT = '4e451a8a-2ee5-493f-aa12-a39f13d7253e';

/** An app on a store that runs every write twice, logging JSON lines into `lines()`. */
async function rerunApp(t: Test, config: Partial<Config> = {}, inner?: Store) {
  const out: string[] = [];
  const full: Config = { ...defaults, seed: 1, catalogSize: 20, db: 'memory', ...config };
  const store = rerunStore(inner ?? (await createStore(full.db)));
  const app = await buildApp({ config: full, clock: fixedClock('2026-01-15T10:00:00Z'), catalog: await testCatalog(), store, logger: await loggerOptions({ ...full, logFormat: 'json' }, { destination: { write: (s: string) => out.push(s) }, env: {} }) });
  t.teardown(() => app.close());
  await app.ready();
  const lines = () => out.join('').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
  return { app, store, lines };
}

const admin = async (app: FastifyInstance, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) => {
  const res = await app.inject({ method, url: `/__admin${url}`, ...(payload === undefined ? {} : { payload }) });
  return { status: res.statusCode, body: res.body ? res.json() : undefined };
};

t.test('a fault armed for one request answers one, also when another instance used it up meanwhile', async (t) => {
  const { app, store } = await rerunApp(t);
  const currencies = async () => (await app.inject({ url: '/api/v3/currencies', headers: H })).statusCode;
  t.equal((await admin(app, 'POST', '/faults', { application: APP, method: 'GET', path: '/currencies', status: 503, times: 1 })).status, 201);
  t.same([await currencies(), await currencies()], [503, 200], 'the fault answers the first request only');

  t.equal((await admin(app, 'POST', '/faults', { method: 'GET', path: '/currencies', status: 503, times: 1 })).status, 201);
  t.same([await currencies(), await currencies()], [503, 200], 'a server-wide fault answers the first request only');

  t.equal((await admin(app, 'POST', '/faults', { application: APP, method: 'GET', path: '/currencies', status: 503, times: 1 })).status, 201);
  // Between the runs of the request's take, another instance takes the fault.
  store.meanwhile.push((application, tenant) => {
    const id = Object.keys(tenant.faults)[0];
    if (application !== APP || id === undefined) return false;
    delete tenant.faults[id];
    tenant.faults_rev++;
    return true;
  });
  t.equal(await currencies(), 200, 'a fault used up by another instance answers nothing here');
  t.equal(store.meanwhile.length, 0, 'the other instance took it during the take');
  t.ok(store.reruns > 0, `${store.reruns} writes ran twice`);
});

t.test('the items of an order are found by the control API, also when another instance writes an order unseen', async (t) => {
  const { app, store } = await rerunApp(t);
  const call = overInject(app, APP);
  const a = await bookOrder(call, INSTANT);
  // A lookup builds the application's index of items.
  t.equal((await admin(app, 'GET', '/orders')).body.orders.length, 1);
  t.equal((await admin(app, 'POST', `/order-items/${a.items[0]!.uuid}/status`, { status: 'REFUND_STARTED' })).status, 200);
  const b = await bookOrder(call, INSTANT);
  t.equal((await admin(app, 'POST', `/order-items/${b.items[0]!.uuid}/status`, { status: 'REFUND_STARTED' })).status, 200, 'the order created here');
  // Another instance sharing the store writes an order this one's index has not seen.
  const c = await store.update(APP, (tenant) => {
    const o = structuredClone(tenant.orders[b.uuid]) as unknown as { uuid: string; items: Array<{ uuid: string; status: string }> };
    o.uuid = '00000000-0000-4000-8000-00000000000c';
    o.items = o.items.map((x, i) => ({ ...x, uuid: `00000000-0000-4000-8000-0000000000${10 + i}`, status: 'OK' }));
    tenant.orders[o.uuid] = o as unknown as Tenant['orders'][string];
    return o;
  });
  const moved = await admin(app, 'POST', `/order-items/${c.items[0]!.uuid}/status`, { status: 'REFUND_STARTED' });
  t.equal(moved.status, 200, `the order written elsewhere (${JSON.stringify(moved.body)})`);
});

t.test('a scenario run logs each step once', async (t) => {
  const { app, lines } = await rerunApp(t);
  const order = await bookOrder(overInject(app, APP), INSTANT);
  const item = order.items[0]!.uuid;
  t.equal((await admin(app, 'POST', '/scenarios/cancellation-error-kept/run', { order_item_uuid: item })).status, 200);
  const steps = () => lines().flatMap((l) => (l.scenario_step as { order_item_uuid: string; from: string; to: string } | undefined) ?? []).filter((s) => s.order_item_uuid === item);
  await until('a step logged', () => steps().length > 0);
  const moves = steps().map((s) => `${s.from}→${s.to}`);
  t.same(moves, [...new Set(moves)], `each step once: ${moves.join(', ')}`);
  const stored = (await admin(app, 'GET', '/orders')).body.orders[0].items[0].status;
  t.equal(moves.at(-1)?.split('→')[1], stored, 'the last step logged is where the item is');
});

t.test('a certification run started while one runs ends it once', async (t) => {
  const { app, store } = await rerunApp(t);
  const dropped: number[] = [];
  const drop = app.faults.drop.bind(app.faults);
  app.faults.drop = (application, id) => {
    dropped.push(id);
    return drop(application, id);
  };
  const runs = async () => ((await admin(app, 'GET', `/certifications?application=${APP}`)).body.runs as Array<{ id: string; state: string; setup: Record<string, { fault?: { id: number } }> }>);
  const faults = async () => ((await admin(app, 'GET', `/faults?application=${APP}`)).body.faults as Array<{ id: number }>).map((f) => f.id);
  t.equal((await admin(app, 'POST', '/certifications', { application: APP })).status, 201);
  const [first] = await faults();
  t.equal((await admin(app, 'POST', '/certifications', { application: APP })).status, 201);
  t.same((await runs()).map((r) => r.state).sort(), ['ended', 'running']);
  t.same(dropped, [first], 'the ended run\'s fault is disarmed once');
  t.notOk((await faults()).includes(first!), 'and is gone');

  // Between the runs of the next start's write, another instance ends the running run (it
  // disarms its fault itself): this start has no run to end.
  dropped.length = 0;
  store.meanwhile.push((application, tenant) => {
    // The start's write comes after its fault is armed: two faults then.
    if (application !== APP || Object.keys(tenant.faults).length !== 2) return false;
    for (const r of Object.values(tenant.certifications) as unknown as Array<{ state: string; ended_at: string | null }>) if (r.state === 'running') Object.assign(r, { state: 'ended', ended_at: '2026-01-15T10:00:00.000Z' });
    return true;
  });
  t.equal((await admin(app, 'POST', '/certifications', { application: APP })).status, 201);
  t.equal(store.meanwhile.length, 0, 'the other instance ended it during the start');
  t.same(dropped, [], 'a run ended elsewhere is not disarmed here');
  t.same((await runs()).map((r) => r.state).sort(), ['ended', 'ended', 'running']);
});

t.test('a client revoked by another instance meanwhile is not revoked again here', async (t) => {
  const { app, store } = await rerunApp(t);
  const register = async () => (await admin(app, 'POST', '/clients', { applications: [APP], scopes: [] })).body.client_id as string;
  const first = await register();
  t.equal((await admin(app, 'DELETE', `/clients/${first}`)).status, 204, 'revoked');
  t.equal((await admin(app, 'DELETE', `/clients/${first}`)).status, 404, 'once');
  const second = await register();
  store.serverMeanwhile.push((server) => {
    if (!server.clients || !Object.hasOwn(server.clients, second)) return false;
    server.clients = Object.fromEntries(Object.entries(server.clients).filter(([id]) => id !== second));
    return true;
  });
  t.equal((await admin(app, 'DELETE', `/clients/${second}`)).status, 404, 'the other instance revoked it');
  t.equal(store.serverMeanwhile.length, 0, 'during the revoke');
});

async function webhookOnce(t: Test, inner?: Store) {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const { app, store, lines } = await rerunApp(t, { webhookUrl: receiver.url }, inner);
  // Between the runs of the attempt's write, another instance records an attempt of its own.
  const earlier = { at: '2026-01-15T09:59:00.000Z', status_code: 500, duration_ms: 1 };
  store.meanwhile.push((application, tenant) => {
    const d = Object.values(tenant.deliveries)[0] as unknown as Delivery | undefined;
    if (application !== APP || d?.attempts.length !== 0) return false;
    tenant.deliveries[d.id] = { ...d, attempts: [earlier] } as unknown as Tenant['deliveries'][string];
    return true;
  });
  await bookOrder(overInject(app, APP), INSTANT);
  const deliveries = async () => (await admin(app, 'GET', `/webhooks/deliveries?application=${APP}`)).body.deliveries as Delivery[];
  const [d] = await until('the webhook delivered', async () => ((await deliveries())[0]?.state === 'delivered' ? deliveries() : null));
  await app.webhooks.idle();
  t.equal(receiver.received.length, 1, 'sent once');
  t.equal(d!.attempts.length, 2, 'its attempt is stored after the other instance\'s');
  const logged = lines().flatMap((l) => (l.webhook as { delivery: string; attempt: number; state: string } | undefined) ?? []);
  t.same(logged.map((w) => [w.delivery, w.attempt, w.state]), [[d!.id, 2, 'delivered']], 'logged once, as stored');
  t.equal(store.meanwhile.length, 0, 'the other instance wrote during the attempt\'s write');
}

t.test('a webhook attempt is logged once, as it is stored', (t) => webhookOnce(t));

t.test('the integration report keeps what every request counted (file store)', async (t) => {
  const db = `${tempDir(t)}/state.json`;
  const first = await rerunApp(t, { db });
  const call = overInject(first.app, APP);
  await call('POST', '/login', { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' });
  await first.app.inject({ url: '/api/v3/activities/nope', headers: H });
  await first.app.integrationReport!.flush();
  await first.app.inject({ url: '/api/v3/activities/nope', headers: H });
  await first.app.inject({ url: '/api/v3/currencies', headers: H });
  const before = first.app.integrationReport!.get(APP);
  await first.app.close();
  const again = await rerunApp(t, { db });
  const after = again.app.integrationReport!.get(APP);
  t.equal(after.requests, before.requests, `${before.requests} requests`);
  t.same(after.findings.map((f) => [f.id, f.count]), before.findings.map((f) => [f.id, f.count]), 'the findings and their counts');
  t.ok(before.findings.length > 0, 'there were findings');
});

t.test('PostgreSQL', async (t) => {
  let server: Postgres;
  try {
    server = await startPostgres(t);
  } catch (e) {
    t.fail(`PostgreSQL did not start: ${(e as Error).message}`);
    return;
  }

  t.test('a webhook attempt is logged once, as it is stored', async (t) => webhookOnce(t, await createStore(await server.createDatabase('webhook_once'))));

  t.test('the integration report keeps what every request counted, saved twice', async (t) => {
    const url = await server.createDatabase('report_twice');
    const { app } = await rerunApp(t, { db: url }, await createStore(url));
    const call = overInject(app, APP);
    await call('POST', '/login', { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' });
    for (let save = 0; save < 2; save++) {
      await app.inject({ url: '/api/v3/activities/nope', headers: H });
      await app.inject({ url: '/api/v3/currencies', headers: H });
      await app.integrationReport!.flush();
    }
    const report = async (app: FastifyInstance) => (await app.inject({ url: `/__admin/report?application=${APP}` })).json() as Report;
    const here = await report(app);
    t.equal(here.requests, 5, 'the login and two saves of two requests, on this instance');
    const other = await buildApp({ config: { ...defaults, seed: 1, catalogSize: 20, db: url }, clock: fixedClock('2026-01-15T10:00:00Z'), catalog: await testCatalog(), store: await createStore(url) });
    t.teardown(() => other.close());
    await other.ready();
    const there = await report(other);
    t.equal(there.requests, 5, 'as the other instance reads it from the store');
    t.same(there.findings.map((f) => [f.id, f.count]), here.findings.map((f) => [f.id, f.count]), 'the findings and their counts');
  });
});
