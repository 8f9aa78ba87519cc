// Control writes sent at once, to one instance or to two sharing a PostgreSQL database: each is
// decided under the store's lock on the state as it is then, so none is lost or applied twice.
import t, { type Test } from 'tap';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse as Response } from 'fastify';
import { systemClock, type Clock } from '../../src/clock.js';
import type { Config } from '../../src/config.js';
import { createStore, type Store } from '../../src/store/index.js';
import { bookOrder, CONFIRM, overInject, overInjectInTurn } from '../book-order.js';
import { buildTestApp } from '../helper.js';
import { startPostgres } from '../pg/server.js';
import { tempDir } from '../tmp.js';
import { startReceiver } from '../webhooks/receiver.js';

const pg = await startPostgres(t);
let databases = 0;

interface Options {
  clock?: () => Clock;
  config?: Partial<Config>;
}

/** The places a control write may race: two instances on one database, or one instance on a state file. */
const setups: Record<string, (t: Test, opts?: Options) => Promise<FastifyInstance[]>> = {
  postgres: (t, opts) => onPostgres(t, opts),
  'file store': async (t, opts = {}) => [started(t, await buildTestApp({ store: await createStore(join(tempDir(t), 'state.json')), config: opts.config, ...(opts.clock ? { clock: opts.clock() } : {}) }))],
};

/** Two instances on a fresh database (a fixed clock each, unless `clock` makes them). */
async function onPostgres(t: Test, opts: Options = {}): Promise<FastifyInstance[]> {
  const url = await pg.createDatabase(`control_${++databases}`);
  return Promise.all([0, 1].map(async () => started(t, await buildTestApp({ store: await createStore(url), config: opts.config, ...(opts.clock ? { clock: opts.clock() } : {}) }))));
}

function started(t: Test, app: FastifyInstance): FastifyInstance {
  t.teardown(() => app.close());
  return app;
}

const HOUR = 3_600_000;
const times = <T>(n: number, fn: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => fn(i));

for (const [where, setup] of Object.entries(setups)) {
  t.test(`${where}: twelve PT1H advances at once move a clock 12 h, an application's and the server's`, async (t) => {
    const apps = await setup(t, { clock: systemClock });
    const on = (i: number) => apps[i % apps.length] as FastifyInstance;
    for (const application of ['team', undefined]) {
      const moves = await Promise.all(times(12, (i) => on(i).inject({ method: 'POST', url: '/__admin/clock', payload: { advance: 'PT1H', application } })));
      t.same(moves.map((r) => r.statusCode), times(12, () => 200), 'every move answered 200');
      // Each move started from the time the one before it left: its answer is an hour (and the real
      // time that passed meanwhile) after the one before.
      const answered = moves.map((r) => Date.parse(r.json().now)).sort((a, b) => a - b);
      const gaps = answered.slice(1).map((at, i) => at - (answered[i] as number));
      t.ok(gaps.every((g) => g >= HOUR && g < HOUR + 60_000), `answers an hour apart: ${gaps.join(', ')}`);
      for (const [i, app] of apps.entries()) {
        const read = (await app.inject({ url: `/__admin/clock${application ? `?application=${application}` : ''}` })).json();
        if (application) t.equal(read.application_offset_ms, 12 * HOUR, `instance ${i}: the application's clock moved exactly 12 h`);
        else t.equal(read.offset_ms, 12 * HOUR, `instance ${i}: the server clock moved exactly 12 h`);
      }
    }
  });
}

/**
 * Holds the writes (`update` or `updateServer`) of an instance's store from now until released
 * (`waiting`: the first is reached): the request has read what it needed and waits for the store's
 * lock, as it does while another instance's write holds it. Every write is held, not only the next:
 * on a slow machine a background one (a sweep, the report's save) may come first, and the request's
 * own must not pass.
 */
function holdWrites(store: Store, write: 'update' | 'updateServer'): { waiting: Promise<void>; release(): void } {
  const original = store[write] as (...args: unknown[]) => Promise<unknown>;
  let open = () => {};
  let reached = () => {};
  const held = new Promise<void>((r) => (open = r));
  const waiting = new Promise<void>((r) => (reached = r));
  Object.assign(store, {
    [write]: async (...args: unknown[]) => {
      reached();
      await held;
      return original.apply(store, args);
    },
  });
  const release = () => {
    Object.assign(store, { [write]: original });
    open();
  };
  return { waiting, release };
}

t.test('postgres: an order item reset on one instance while the other moves it is a 404, not a 500', async (t) => {
  const [a, b] = (await onPostgres(t)) as [FastifyInstance, FastifyInstance];
  const order = await bookOrder(overInject(a, 'team'));
  const hold = holdWrites(a.store, 'update');
  const move = a.inject({ method: 'POST', url: `/__admin/order-items/${order.items[0]?.uuid}/status`, payload: { status: 'OK' } });
  await hold.waiting;
  t.equal((await b.inject({ method: 'POST', url: '/__admin/reset', payload: { application: 'team' } })).statusCode, 200);
  hold.release();
  const res = await move;
  t.equal(res.statusCode, 404, res.body);
  t.match(res.json(), { code: String, message: /does not exist/ });
  t.same(a.store.tenant('team').orders, {}, 'the reset stands: the move wrote nothing');
});

t.test('postgres: a client revoked on two instances at once is revoked once: one 204, one 404', async (t) => {
  const [a, b] = (await onPostgres(t)) as [FastifyInstance, FastifyInstance];
  const registered = await a.inject({ method: 'POST', url: '/__admin/clients', payload: { applications: ['team'], scopes: [] } });
  const url = `/__admin/clients/${registered.json().client_id}`;
  const hold = holdWrites(a.store, 'updateServer');
  const first = a.inject({ method: 'DELETE', url });
  await hold.waiting;
  t.equal((await b.inject({ method: 'DELETE', url })).statusCode, 204, 'revoked on the other instance');
  hold.release();
  const late = await first;
  t.equal(late.statusCode, 404, 'the revoke that waited finds no client');
  t.match(late.json(), { code: String, message: /No registered client/ });
});

/** Polls `check` every 50 ms until it holds (at most `ms`). */
async function until(check: () => boolean | Promise<boolean>, ms = 30_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) if (await check()) return true;
  return check();
}

for (const [where, setup] of Object.entries(setups)) {
  t.test(`${where}: a scenario started twice at once on each of 8 items runs once on each, to its end`, async (t) => {
    const rx = await startReceiver();
    t.teardown(rx.close);
    const apps = await setup(t, { config: { webhookUrl: rx.url } });
    const on = (i: number) => apps[i % apps.length] as FastifyInstance;
    const items: string[] = [];
    for (let i = 0; i < 8; i++) items.push((await bookOrder(overInjectInTurn(apps, 'team'))).items[0]!.uuid);
    for (const [i, item] of items.entries()) {
      t.equal((await on(i).inject({ method: 'POST', url: `/__admin/order-items/${item}/status`, payload: { status: 'OK' } })).statusCode, 200);
    }
    // OK -> REFUND_STARTED at once, CANCELLATION_ERROR a minute later, back to OK five minutes after
    // that. Each item started twice, once on each instance, all 16 starts at once.
    const start = (n: number, item: string | undefined) => on(n).inject({ method: 'POST', url: '/__admin/scenarios/cancellation-error-kept/run', payload: { order_item_uuid: item } });
    const starts = await Promise.all(items.flatMap((item, i) => [start(i, item), start(i + 1, item)]));
    for (const [i, item] of items.entries()) {
      const pair = starts.slice(2 * i, 2 * i + 2).sort((a, b) => a.statusCode - b.statusCode) as [Response, Response];
      t.same(pair.map((r) => r.statusCode), [200, 409], `item ${i}: one start, one 409`);
      t.match(pair[1].json(), { code: '0', message: /scenario cancellation-error-kept running/, run: { order_item_uuid: item, name: 'cancellation-error-kept', started_at: String, steps: 3, stopped: null } }, `item ${i}: the 409 describes the run going`);
    }
    t.equal((await on(0).inject({ method: 'POST', url: '/__admin/clock', payload: { advance: 'PT6M' } })).statusCode, 200);
    const statuses = (item: string) => rx.received.map((r) => JSON.parse(r.body)).filter((p) => p.order_item_uuid === item).map((p) => p.order_item_status);
    const ended = () => items.every((item) => statuses(item).length >= 4);
    t.ok(await until(ended), 'every item reaches the end of the scenario');
    for (const [i, item] of items.entries()) {
      t.same(statuses(item), ['OK', 'REFUND_STARTED', 'CANCELLATION_ERROR', 'OK'], `item ${i}: each move's webhook, once, in order`);
      const read = (await on(i + 1).inject({ url: '/__admin/orders?application=team' })).json();
      const x = read.orders.flatMap((o: { items: unknown[] }) => o.items).find((y: { uuid: string }) => y.uuid === item);
      t.match(x, { status: 'OK', scenario: { name: 'cancellation-error-kept', steps_done: 3, stopped: null } }, `item ${i}: back to OK, its run done`);
    }
    t.equal((await start(1, items[0])).statusCode, 200, 'a run that has ended may start again');
  });
}

t.test('postgres: the webhook sent again by POST …/notifications carries the status under the lock, not the one read before it', async (t) => {
  const rx = await startReceiver();
  t.teardown(rx.close);
  const [a, b] = (await onPostgres(t, { config: { webhookUrl: rx.url } })) as [FastifyInstance, FastifyInstance];
  const call = overInject(a, 'team');
  const order = await bookOrder(call);
  const item = order.items[0]!.uuid;
  const hold = holdWrites(a.store, 'update');
  const notify = call('POST', `/orders/${order.uuid}/items/${item}/notifications`);
  await hold.waiting;
  t.equal((await b.inject({ method: 'POST', url: `/__admin/order-items/${item}/status`, payload: { status: 'OK' } })).statusCode, 200, 'moved on the other instance meanwhile');
  hold.release();
  await notify;
  const deliveries = (await a.inject({ url: `/__admin/webhooks/deliveries?order_item_uuid=${item}` })).json().deliveries as Array<{ seq: number; payload: Record<string, unknown> }>;
  const sent = deliveries.sort((x, y) => x.seq - y.seq).map((d) => `${d.payload.order_item_status}@${d.payload.order_item_version}`);
  t.same(sent, ['OK@2', 'OK@2'], 'the move, then the notification of the status it left');
});

t.test('postgres: a payment or a cancellation of an order that a reset on the other instance dropped meanwhile is a 404, not a 500', async (t) => {
  const [a, b] = (await onPostgres(t)) as [FastifyInstance, FastifyInstance];
  /** Sends a partner request of `application` on a, held on its way to the lock while b resets the application. */
  const resetUnder = async (application: string, token: string, request: { method: 'POST' | 'DELETE'; url: string; payload: object }) => {
    const hold = holdWrites(a.store, 'update');
    const sent = a.inject({ ...request, url: `/api/v3${request.url}`, headers: { 'x-service-application': application, authorization: `Bearer ${token}` } });
    await hold.waiting;
    t.equal((await b.inject({ method: 'POST', url: '/__admin/reset', payload: { application } })).statusCode, 200);
    hold.release();
    const res = await sent;
    t.equal(res.statusCode, 404, `${request.method} ${request.url}: ${res.body}`);
    t.match(res.json(), { code: '1400', message: /Order .* does not exist/ });
    t.same(a.store.tenant(application).orders, {}, 'the reset stands');
  };
  const login = async (application: string) =>
    (await a.inject({ method: 'POST', url: '/api/v3/login', headers: { 'x-service-application': application }, payload: { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' } })).json().access_token as string;

  const pay = overInject(a, 'pay');
  await bookOrder(pay); // logged in, and the product's id known
  const [s] = await pay('GET', `/activities/${CONFIRM}/dates/2026-01-20`);
  const cart = await pay('POST', '/carts');
  await pay('POST', `/carts/${cart.uuid}/items`, [{ product_identifier: s.groups[0].slots[0].products[0].product_id, quantity: 1, language: 'en' }]);
  await pay('PUT', `/carts/${cart.uuid}/customer`, { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', musement_newsletter: 'NO', allow_profiling: 'NO', thirdparty_newsletter: 'NO', events_related_newsletter: 'NO' });
  const unpaid = await pay('POST', '/orders', { cart_uuid: cart.uuid });
  await resetUnder('pay', await login('pay'), { method: 'POST', url: '/payments/no/payment', payload: { uuid: unpaid.uuid } });

  const order = await bookOrder(overInject(a, 'cancel'));
  const item = order.items[0]!.uuid;
  t.equal((await a.inject({ method: 'POST', url: `/__admin/order-items/${item}/status`, payload: { status: 'OK' } })).statusCode, 200);
  await resetUnder('cancel', await login('cancel'), { method: 'DELETE', url: `/orders/${order.uuid}/items/${item}`, payload: { cancellation_reason: 'CANCELLED-BY-CUSTOMER' } });
});
