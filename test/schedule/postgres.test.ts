// Due work on one PostgreSQL shared by two app instances: each webhook, scenario step and retention
// sweep runs once, on one of them, whichever instance recorded it.
import t, { type Test } from 'tap';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { systemClock } from '../../src/clock.js';
import { createStore } from '../../src/store/index.js';
import { deliveryDue } from '../../src/webhooks/delivery.js';
import { LeaseLostError } from '../../src/store/index.js';
import { bookOrder, overInjectInTurn } from '../book-order.js';
import { query, startPostgres } from '../pg/server.js';
import { buildWebhookApp, startReceiver, T0, type Answer, type Received } from '../webhooks/receiver.js';

const server = await startPostgres(t);
let n = 0;

/** The rows `text` selects, on a connection of its own. */
const rows = async (db: string, text: string) => (await query(db, text)).rows;

/** A store on a fresh database whose deliveries are due work, and that database's URL. */
async function deliveryStore(t: Test) {
  const db = await server.createDatabase(`due_${++n}`);
  const store = await createStore(db);
  t.teardown(() => store.close());
  store.due!.rule({ field: 'deliveries', kind: 'webhook', due: deliveryDue });
  return { db, store, due: store.due! };
}

/**
 * Two instances on one fresh database, on real clocks set to the test day, sending to `url`. An
 * attempt that times out is retried (at least once, as documented), so the attempts get 5 s, not the
 * helpers' 500 ms: on a loaded machine, ten deliveries claimed together to the receiver in this
 * process took up to 866 ms, and their retries, a second claim and send each, failed the counts of
 * exactly once below, which are about instances sharing claims and not about slow receivers.
 */
async function pair(t: Test, url: string | null): Promise<[FastifyInstance, FastifyInstance]> {
  const db = await server.createDatabase(`due_${++n}`);
  const apps: FastifyInstance[] = [];
  for (let i = 0; i < 2; i++) {
    const app = await buildWebhookApp({ store: await createStore(db), clock: systemClock(Date.parse(T0) - Date.now()), config: { webhookUrl: url }, schedule: { leaseMs: 1000 }, webhooks: { timeoutMs: 5000 } });
    t.teardown(() => app.close());
    apps.push(app);
  }
  return apps as [FastifyInstance, FastifyInstance];
}

async function receiver(t: Test, answer?: (r: Received, i: number) => Answer) {
  const rx = await startReceiver(answer);
  t.teardown(rx.close);
  return rx;
}

const move = (app: FastifyInstance, item: string, status: string) => app.inject({ method: 'POST', url: `/__admin/order-items/${item}/status`, payload: { status } });
const keyOf = (r: Received) => {
  const p = JSON.parse(r.body);
  return `${p.order_item_uuid}@${p.order_item_version}`;
};

/** Polls `check` every 50 ms until it holds (at most `ms`). */
async function until(check: () => boolean | Promise<boolean>, ms = 15_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) if (await check()) return true;
  return check();
}

async function delivered(app: FastifyInstance, application: string): Promise<number> {
  const res = await app.inject({ url: `/__admin/webhooks/deliveries?application=${application}` });
  return (res.json().deliveries as Array<{ state: string }>).filter((d) => d.state === 'delivered').length;
}

t.test('50 moves on alternating instances: every webhook is received exactly once, versions of an item in order', async (t) => {
  const rx = await receiver(t);
  const [a, b] = await pair(t, rx.url);
  const orders = [];
  for (let i = 0; i < 25; i++) orders.push(await bookOrder(overInjectInTurn(i % 2 ? [a, b] : [b, a], 'many')));
  const items = orders.map((o) => o.items[0]!.uuid);
  // Each item moved twice, the first move on one instance and the second on the other; the items' moves run together.
  const first = await Promise.all(items.map((item, i) => move(i % 2 ? a : b, item, 'OK')));
  t.same(new Set(first.map((r) => r.statusCode)), new Set([200]));
  const second = await Promise.all(items.map((item, i) => move(i % 2 ? b : a, item, 'REFUND_STARTED')));
  t.same(new Set(second.map((r) => r.statusCode)), new Set([200]));

  t.ok(await until(async () => (await delivered(a, 'many')) === 50), 'all 50 recorded delivered');
  await new Promise((r) => setTimeout(r, 1500)); // longer than a lease: anything sent again would have come by now
  const keys = rx.received.map(keyOf);
  t.equal(new Set(keys).size, 50, 'none missing');
  t.equal(keys.length, 50, `none twice (${keys.length} received)`);
  for (const item of items) {
    const order = keys.filter((k) => k.startsWith(item));
    t.same(order, [`${item}@2`, `${item}@3`], 'an item\'s second move arrives after its first');
  }
  t.equal(await delivered(b, 'many'), 50, 'the other instance reads the same log');
  const claimed = [a, b].map((app) => app.scheduler.stats.claimed.webhook ?? 0);
  t.equal(claimed[0]! + claimed[1]!, 50, `each delivery claimed once (${claimed.join(' + ')})`);
});

t.test('a retry is sent by whichever instance claims it, once', async (t) => {
  let calls = 0;
  const rx = await receiver(t, () => (calls++ === 0 ? 500 : 200));
  const [a, b] = await pair(t, rx.url);
  const order = await bookOrder(overInjectInTurn([a, b], 'retry'));
  const item = order.items[0]!.uuid;
  t.equal((await move(a, item, 'OK')).statusCode, 200);
  t.ok(await until(() => rx.received.length === 1), 'the first attempt fails');
  // The retry is 10 s away on the default schedule, on the application's clock: moving that clock
  // (not the server's) on b brings it due on both.
  t.equal((await b.inject({ method: 'POST', url: '/__admin/clock', payload: { advance: 'PT5S', application: 'retry' } })).statusCode, 200);
  await new Promise((r) => setTimeout(r, 1500));
  t.equal(rx.received.length, 1, 'not due yet five seconds on');
  t.equal((await b.inject({ method: 'POST', url: '/__admin/clock', payload: { advance: 'PT6S', application: 'retry' } })).statusCode, 200);
  t.ok(await until(async () => (await delivered(a, 'retry')) === 1), 'delivered by the retry');
  await new Promise((r) => setTimeout(r, 1500));
  t.equal(rx.received.length, 2, 'one failed attempt, one retry, nothing more');
});

t.test('a reset drops the due work with the state: a retry of an application reset on the other instance is never sent', async (t) => {
  const rx = await receiver(t, () => 500);
  const [a, b] = await pair(t, rx.url);
  const order = await bookOrder(overInjectInTurn([a, b], 'gone'));
  t.equal((await move(a, order.items[0]!.uuid, 'OK')).statusCode, 200);
  t.ok(await until(() => rx.received.length === 1), 'the first attempt fails; a retry is scheduled');
  t.equal((await b.inject({ method: 'POST', url: '/__admin/reset', payload: { application: 'gone' } })).statusCode, 200);
  t.equal((await a.inject({ method: 'POST', url: '/__admin/clock', payload: { advance: 'PT1H' } })).statusCode, 200);
  await new Promise((r) => setTimeout(r, 1500));
  t.equal(rx.received.length, 1, 'no retry after the reset');
  t.equal(await delivered(a, 'gone'), 0);
});

t.test('a scenario step due on both instances is applied once', async (t) => {
  const rx = await receiver(t);
  const [a, b] = await pair(t, rx.url);
  const items: string[] = [];
  for (let i = 0; i < 10; i++) items.push((await bookOrder(overInjectInTurn([a, b], 'steps'))).items[0]!.uuid);
  for (const [i, item] of items.entries()) {
    const res = await (i % 2 ? a : b).inject({ method: 'POST', url: '/__admin/scenarios/delayed-confirmation/run', payload: { order_item_uuid: item } });
    t.equal(res.statusCode, 200);
  }
  t.equal(rx.received.length, 0, 'the step waits two minutes');
  // Both instances' clocks move (the other hears of it): the step is due on both at once.
  t.equal((await a.inject({ method: 'POST', url: '/__admin/clock', payload: { advance: 'PT2M' } })).statusCode, 200);
  t.ok(await until(async () => (await delivered(a, 'steps')) === 10), 'every step applied, its webhook delivered');
  await new Promise((r) => setTimeout(r, 1500));
  await b.store.sync!('steps');
  for (const item of items) t.match(b.orderItems.find(item)?.order.items[0], { status: 'OK', version: 2 }, 'moved once');
  t.same(rx.received.map(keyOf).sort(), items.map((i) => `${i}@2`).sort(), 'one webhook per step');
  const claimed = [a, b].map((app) => app.scheduler.stats.claimed.scenario ?? 0);
  t.ok(claimed[0]! + claimed[1]! >= 10, `the runs were claimed (${claimed.join(' + ')})`);
});

t.test('the retention sweep runs on one instance per window', async (t) => {
  const [a, b] = await pair(t, null);
  const H = { 'x-service-application': 'sweep' };
  const cart = async (app: FastifyInstance) => (await app.inject({ method: 'POST', url: '/api/v3/carts', headers: H })).json().uuid as string;
  const old = [await cart(a), await cart(b)];
  const sweeps = () => a.scheduler.stats.sweeps + b.scheduler.stats.sweeps;
  // Creations on both instances, a few at a time, until one of them has swept (bounded).
  const burst = async () => {
    for (let i = 0; i < 40; i++) {
      await Promise.all([cart(a), cart(b)]);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  await burst();
  t.equal(sweeps(), 1, 'the first window: one sweep');
  await a.inject({ method: 'POST', url: '/__admin/clock', payload: { advance: 'P4M' } });
  await new Promise((r) => setTimeout(r, 200)); // b hears of the clock
  await burst();
  t.equal(sweeps(), 2, 'four months later: one sweep more, on one instance');
  await a.store.sync!('sweep');
  for (const uuid of old) t.notOk(a.store.tenant('sweep').carts[uuid], 'the expired carts are gone');
});

t.test('due rows commit with their records, are claimed by one owner, go with their records, and are rebuilt by the migration', async (t) => {
  const db = await server.createDatabase(`due_${++n}`);
  const sql = (text: string) => rows(db, text);
  const store = await createStore(db);
  t.teardown(() => store.close());
  store.due!.rule({ field: 'deliveries', kind: 'webhook', due: deliveryDue });
  const pending = { id: 'd1', application: 'x', order_item_uuid: 'item', order_item_version: 2, seq: 7, state: 'pending', next_attempt_at: T0 };
  await store.update('x', (tn) => void (tn.deliveries.d1 = { ...pending }));
  const row = [{ app: 'x', kind: 'webhook', key: 'd1', due_at: String(Date.parse(T0)), chain: 'item', rank: '2000000000007', lease_owner: null }];
  t.same(await sql('select app, kind, key, due_at, chain, rank, lease_owner from mock_due'), row, 'written with the record');
  t.same(await store.due!.claim('webhook', 'one', Date.parse(T0) - 1, 1000, 10), [], 'not due a millisecond before');
  t.match(await store.due!.claim('webhook', 'one', Date.parse(T0), 1000, 10), [{ application: 'x', key: 'd1', token: /^\d+$/ }], 'claimed when due');
  t.same(await store.due!.claim('webhook', 'two', Date.parse(T0), 1000, 10), [], 'not by a second owner while leased');
  await store.update('x', (tn) => void (tn.deliveries.d2 = { ...pending, id: 'd2', order_item_version: 3, seq: 8 }));
  t.same(await store.due!.claim('webhook', 'two', Date.parse(T0), 1000, 10), [], "the item's next version waits for the one under way");
  await store.update('x', (tn) => void (tn.deliveries.d1 = { ...pending, state: 'delivered', next_attempt_at: null }));
  t.match(await store.due!.claim('webhook', 'two', Date.parse(T0), 1000, 10), [{ application: 'x', key: 'd2' }], 'and goes once it is delivered');
  await store.update('x', (tn) => void delete tn.deliveries.d2);
  t.same(await sql('select key from mock_due'), [], 'gone with the deliveries');

  // A database of the schema before due rows: the migration makes the rows of pending records.
  await store.update('x', (tn) => void (tn.deliveries.d1 = { ...pending }));
  // (the tables of later migrations go too, so that the start runs them again)
  await sql('drop index mock_records_clock, mock_records_tombstones; drop table mock_due, mock_journal, mock_journal_detail, mock_journal_apps, mock_instances; drop function mock_fence; drop sequence mock_journal_id, mock_lease; update mock_schema_version set version = 1');
  const again = await createStore(db);
  t.teardown(() => again.close());
  t.same(await sql('select app, kind, key, due_at, chain, rank, lease_owner from mock_due'), row, 'rebuilt at start');
});

t.test('a claim fences its outcome: once another instance took the lease over, the first one writes nothing; a write that reads a record keeps its lease', async (t) => {
  const { db, store, due } = await deliveryStore(t);
  const row = async () => (await rows(db, "select lease_owner, lease_token::text as token, due_at::text from mock_due where key = 'd1'"))[0];
  const pending = { id: 'd1', application: 'x', order_item_uuid: 'item', order_item_version: 1, seq: 1, state: 'pending', next_attempt_at: T0, attempts: [] as string[] };
  await store.update('x', (tn) => void (tn.deliveries.d1 = { ...pending }));
  const [first] = await due.claim('webhook', 'one', Date.parse(T0), 200, 10);
  t.ok(first, 'claimed by one');
  await store.update('x', (tn) => tn.deliveries.d1?.state);
  t.match(await row(), { lease_owner: 'one', token: first!.token }, 'an update that only read the delivery (and so wrote it again) left its lease alone');

  // The lease runs out unrenewed (one is frozen, say): two claims it, with a new token.
  let second: typeof first;
  for (const end = Date.now() + 10_000; !second && Date.now() < end; ) [second] = await due.claim('webhook', 'two', Date.parse(T0), 60_000, 10);
  t.ok(second && second.token !== first!.token, 'claimed again by two, with a new token');
  t.same(await due.renew('webhook', [first!], 60_000), [], "one's renewal finds its lease lost");
  t.same(await due.renew('webhook', [second!], 60_000), [second], "two's holds");
  t.equal(await due.release('webhook', first!), false, "one's release changes nothing");
  t.equal(await due.drop('webhook', first!), false, "one's drop neither");
  let ran = false;
  const late = store.update('x', (tn) => ((ran = true), void (tn.deliveries.d1 = { ...pending, attempts: ['late'], state: 'failed' })), [{ kind: 'webhook', ...first! }]);
  await t.rejects(late, LeaseLostError, "one's outcome is refused");
  t.notOk(ran, 'without running');
  t.same(store.tenant('x').deliveries.d1, pending, 'the delivery is as it was');
  t.match(await row(), { lease_owner: 'two', token: second!.token }, "and two's lease is intact");

  const retry = new Date(Date.parse(T0) + 10_000).toISOString();
  await store.update('x', (tn) => void (tn.deliveries.d1 = { ...pending, attempts: ['500'], next_attempt_at: retry }), [{ kind: 'webhook', ...second! }]);
  t.match(await row(), { lease_owner: null, token: null, due_at: String(Date.parse(retry)) }, "two's outcome is written, and its lease given back with it");
  t.same(await due.claim('webhook', 'one', Date.parse(retry), 1000, 10).then((c) => c.map((x) => x.key)), ['d1'], 'the retry is anyone\'s when due');
});

t.test("a claim names its record's version: a cache that holds it reads nothing and waits for no write under way; one that does not reads", async (t) => {
  const { db, store, due } = await deliveryStore(t);
  const d = (id: string) => ({ id, order_item_uuid: id, order_item_version: 1, seq: 1, state: 'pending', next_attempt_at: T0 });
  await store.update('x', (tn) => void (tn.deliveries.d1 = d('d1')));
  const [mine] = await due.claim('webhook', 'me', Date.parse(T0), 60_000, 10);
  const [written] = await rows(db, "select version::int as v from mock_records where field = 'deliveries' and key = 'd1'");
  t.equal(mine?.version, written!.v, 'the claim names the version of the write that made its record');

  // A write of x under way, held at the row lock another connection took.
  const locker = new pg.Client({ connectionString: db });
  await locker.connect();
  t.teardown(() => locker.end());
  await locker.query('begin');
  await locker.query("select 1 from mock_tenants where app = 'x' for update");
  const writing = store.update('x', (tn) => void (tn.deliveries.d2 = d('d2')));
  t.ok(await until(async () => (await rows(db, "select 1 from pg_stat_activity where wait_event_type = 'Lock' and query like '%mock_write%'")).length === 1), 'the write waits for the lock');
  let plain = false;
  const synced = Promise.resolve(store.sync!('x')).then(() => (plain = true));
  const holding = await Promise.race([Promise.resolve(store.sync!('x', mine!.version)).then(() => 'at once'), new Promise((r) => setTimeout(() => r('not within 2 s'), 2000))]);
  t.equal(holding, 'at once', 'a sync for the version this cache holds');
  t.notOk(plain, 'while a plain sync waits for the write');
  await locker.query('rollback');
  await writing;
  await synced;

  // A delivery another instance recorded: this cache does not hold its version, and reads it.
  const other = await createStore(db);
  t.teardown(() => other.close());
  other.due!.rule({ field: 'deliveries', kind: 'webhook', due: deliveryDue });
  await other.update('x', (tn) => void (tn.deliveries.d3 = d('d3')));
  const theirs = (await due.claim('webhook', 'me', Date.parse(T0), 60_000, 10)).find((c) => c.key === 'd3');
  t.ok(theirs?.version !== undefined && !store.tenant('x').deliveries.d3, 'claimed, not in this cache');
  await store.sync!('x', theirs!.version);
  t.match(store.tenant('x').deliveries.d3, { id: 'd3', state: 'pending' }, 'read by the sync for its version');
});

t.test('releases and drops asked for together (one statement each) answer each for its own claim, by its token', async (t) => {
  const { db, store, due } = await deliveryStore(t);
  const d = (id: string) => ({ id, order_item_uuid: id, order_item_version: 1, seq: 1, state: 'pending', next_attempt_at: T0 });
  await store.update('x', (tn) => {
    for (const id of ['a', 'b', 'c', 'e']) tn.deliveries[id] = d(id);
  });
  const claims = new Map((await due.claim('webhook', 'me', Date.parse(T0), 60_000, 10)).map((c) => [c.key, c]));
  t.equal(claims.size, 4);
  const later = Date.parse(T0) + 5000;
  const stale = (key: string) => ({ ...claims.get(key)!, token: '0' });
  const answers = await Promise.all([due.release('webhook', claims.get('a')!, later), due.release('webhook', stale('b')), due.drop('webhook', claims.get('c')!), due.drop('webhook', stale('e'))]);
  t.same(answers, [true, false, true, false], 'held claims are given back or dropped; those whose token is not the lease\'s change nothing');
  t.same(await rows(db, "select key, lease_owner, due_at::text from mock_due where kind = 'webhook' order by key"), [
    { key: 'a', lease_owner: null, due_at: String(later) },
    { key: 'b', lease_owner: 'me', due_at: String(Date.parse(T0)) },
    { key: 'e', lease_owner: 'me', due_at: String(Date.parse(T0)) },
  ]);
});

t.test("applications take turns in a claim: one's backlog does not hold back another's work", async (t) => {
  const store = await createStore(await server.createDatabase(`due_${++n}`));
  t.teardown(() => store.close());
  store.due!.rule({ field: 'deliveries', kind: 'webhook', due: deliveryDue });
  const at = (s: number) => new Date(Date.parse(T0) + s * 1000).toISOString();
  const d = (id: string, item: string, s: number) => ({ id, order_item_uuid: item, order_item_version: 1, seq: 1, state: 'pending', next_attempt_at: at(s) });
  await store.update('busy', (tn) => {
    for (let i = 0; i < 20; i++) tn.deliveries[`b${i}`] = d(`b${i}`, `item${i}`, i);
  });
  await store.update('quiet', (tn) => void (tn.deliveries.q = d('q', 'other', 30)));
  const claimed = await store.due!.claim('webhook', 'me', Date.parse(T0) + 60_000, 1000, 3);
  t.same(claimed.map((c) => c.key).sort(), ['b0', 'b1', 'q'], "each application's oldest first, then the next");
});

t.test("a claim bounded by the largest clock offset still finds the work of an application on the server's time", async (t) => {
  const store = await createStore(await server.createDatabase(`due_${++n}`));
  t.teardown(() => store.close());
  store.due!.rule({ field: 'deliveries', kind: 'webhook', due: deliveryDue });
  const DAY = 86_400_000;
  const d = (id: string, at: number) => ({ id, order_item_uuid: id, order_item_version: 1, seq: 1, state: 'pending', next_attempt_at: new Date(at).toISOString() });
  // An application whose clock is a day behind the server's, and one that never moved its clock.
  await store.update('behind', (tn) => {
    tn.clock_offset_ms = -DAY;
    tn.deliveries.late = d('late', Date.parse(T0) - DAY);
  });
  await store.update('plain', (tn) => void (tn.deliveries.now = d('now', Date.parse(T0))));
  const claimed = await store.due!.claim('webhook', 'me', Date.parse(T0), 1000, 10);
  t.same(claimed.map((c) => c.key).sort(), ['late', 'now'], 'both are due on their own clocks');
});
