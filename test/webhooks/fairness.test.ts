import t, { type Test } from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { fixedClock } from '../../src/clock.js';
import { createStore } from '../../src/store/index.js';
import { chaosConfig } from '../../src/webhooks/chaos.js';
import { WebhookDispatcher, type DispatcherOptions } from '../../src/webhooks/dispatcher.js';
import { snapshot, startReceiver, T0 } from './receiver.js';

const item = (i: number) => ({ item: { uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}` } });

/** Polls until `done` holds or `ms` pass; says which. */
async function until(done: () => boolean, ms: number): Promise<boolean> {
  const end = performance.now() + ms;
  while (!done()) {
    if (performance.now() > end) return false;
    await sleep(5);
  }
  return true;
}

/** T's attempts stay stuck in the trickling receiver for the whole test, however slow the machine (the defaults end them after 10 s). */
const STUCK = { timeoutMs: 60_000, deadlineMs: 120_000 };
/** How many of an application's deliveries have an attempt under way, being sent. */
const sending = (d: WebhookDispatcher, application: string) => d.views({ application }).filter((v) => v.waiting?.reason === 'sending').length;
/** How many of an application's deliveries have an attempt under way, held in its chaos delay. */
const delayed = (d: WebhookDispatcher, application: string) => d.views({ application }).filter((v) => v.waiting?.reason === 'chaos_delay').length;

async function dispatcher(t: Test, opts: Partial<DispatcherOptions> = {}) {
  const d = new WebhookDispatcher({ store: await createStore('memory'), clock: fixedClock(T0), headerPrefix: 'X-Service-', ...opts });
  d.start();
  t.teardown(() => d.close());
  return d;
}

/** H's webhook, sent once T's are under way: how long from its move to its arrival (Infinity past 1 s). */
async function moveOfH(d: WebhookDispatcher, healthy: { received: unknown[] }): Promise<number> {
  const t0 = performance.now();
  await d.enqueue('H', snapshot(item(9999)));
  return (await until(() => healthy.received.length === 1, 1000)) ? performance.now() - t0 : Infinity;
}

t.test("260 deliveries stuck on application T's trickling receiver: application H's webhook arrives within 1 s of its move", async (t) => {
  const slow = await startReceiver(() => 'trickle');
  const healthy = await startReceiver();
  t.teardown(async () => {
    await slow.close();
    await healthy.close();
  });
  const d = await dispatcher(t, STUCK);
  await d.configure('T', { url: slow.url, secret: null });
  await d.configure('H', { url: healthy.url, secret: null });
  for (let i = 0; i < 260; i++) await d.enqueue('T', snapshot(item(i)));
  t.ok(await until(() => slow.received.length >= 256, 30_000), "T's attempts reached its receiver");
  t.equal(sending(d, 'T'), 256, 'every attempt that can start has started, and is stuck in its body');
  const ms = await moveOfH(d, healthy);
  t.ok(ms < 1000, `H's webhook arrived ${ms.toFixed(0)} ms after its move`);
  t.equal(slow.received.length, 256, 'T has 256 attempts in flight (its share), the other 4 wait');
  t.ok(d.list({ application: 'T' }).every((x) => x.state === 'pending'), "T's deliveries are still pending");
});

t.test("one receiver for both, trickling only T's 260 deliveries: H's webhook still arrives within 1 s (T holds no more than its share of the connections)", async (t) => {
  const rx = await startReceiver((r) => (r.url.endsWith('?app=T') ? 'trickle' : 200));
  t.teardown(() => rx.close());
  const d = await dispatcher(t, STUCK);
  await d.configure('T', { url: `${rx.url}?app=T`, secret: null });
  await d.configure('H', { url: `${rx.url}?app=H`, secret: null });
  for (let i = 0; i < 260; i++) await d.enqueue('T', snapshot(item(i)));
  t.ok(await until(() => rx.received.length >= 256, 30_000), "T's attempts reached the receiver");
  t.equal(sending(d, 'T'), 256, 'every attempt that can start has started, and is stuck in its body');
  const t0 = performance.now();
  await d.enqueue('H', snapshot(item(9999)));
  const arrived = await until(() => rx.received.some((r) => r.url.endsWith('?app=H')), 1000);
  t.ok(arrived, `H's webhook arrived ${arrived ? (performance.now() - t0).toFixed(0) : 'not'} ms after its move`);
});

t.test("260 deliveries of application T delayed 60 s by chaos: application H's webhook to the same receiver arrives within 1 s", async (t) => {
  const rx = await startReceiver();
  t.teardown(() => rx.close());
  const d = await dispatcher(t, { flags: { url: rx.url, secret: null } });
  await d.chaos.set('T', chaosConfig({ delay_ms: [60_000, 60_000] }));
  for (let i = 0; i < 260; i++) await d.enqueue('T', snapshot(item(i)));
  t.ok(await until(() => delayed(d, 'T') === 260, 5000), "T's 260 attempts are in their chaos delay");
  const ms = await moveOfH(d, rx);
  t.ok(ms < 1000, `H's webhook arrived ${ms.toFixed(0)} ms after its move`);
  t.equal(rx.received.length, 1, "none of T's, still in their delay");
});

t.test('a chaos delay waits outside the sending capacity: 2 slots in all, 5 delayed deliveries, another application still sends', async (t) => {
  const rx = await startReceiver();
  t.teardown(() => rx.close());
  const d = await dispatcher(t, { flags: { url: rx.url, secret: null }, concurrency: 2 });
  await d.chaos.set('T', chaosConfig({ delay_ms: [60_000, 60_000] }));
  for (let i = 0; i < 5; i++) await d.enqueue('T', snapshot(item(i)));
  t.ok(await until(() => delayed(d, 'T') === 5, 5000), "T's 5 attempts are in their chaos delay");
  const ms = await moveOfH(d, rx);
  t.ok(ms < 1000, `H's webhook arrived ${ms.toFixed(0)} ms after its move`);
});

t.test('after its delay, a delayed delivery is sent within its application\'s share, and versions of an item stay in order', async (t) => {
  const rx = await startReceiver();
  t.teardown(() => rx.close());
  const d = await dispatcher(t, { flags: { url: rx.url, secret: null }, concurrency: 4, perApplication: 2 });
  await d.chaos.set('T', chaosConfig({ delay_ms: [50, 50] }));
  for (let i = 0; i < 6; i++) await d.enqueue('T', snapshot(item(i)));
  for (const [version, status] of [[1, 'PENDING'], [2, 'OK'], [3, 'REFUND_STARTED']] as const) {
    await d.enqueue('T', snapshot({ item: { ...item(100).item, version, status } }));
  }
  await d.idle();
  t.equal(rx.received.length, 9, 'every delivery arrived');
  t.ok(d.list().every((x) => x.state === 'delivered' && x.attempts[0]?.chaos === 'delay'));
  const versions = rx.received.map((r) => JSON.parse(r.body)).filter((p) => p.order_item_uuid === item(100).item.uuid).map((p) => p.order_item_version);
  t.same(versions, ['1', '2', '3'], 'one item: its versions in order');
});

t.test('closing the dispatcher does not wait for chaos delays', async (t) => {
  const rx = await startReceiver();
  t.teardown(() => rx.close());
  const d = new WebhookDispatcher({ store: await createStore('memory'), clock: fixedClock(T0), headerPrefix: 'X-Service-', flags: { url: rx.url, secret: null } });
  d.start();
  await d.chaos.set('T', chaosConfig({ delay_ms: [60_000, 60_000] }));
  await d.enqueue('T', snapshot());
  t.ok(await until(() => delayed(d, 'T') === 1, 5000), 'the attempt is in its chaos delay');
  const t0 = performance.now();
  await d.close();
  t.ok(performance.now() - t0 < 1000, `closed in ${(performance.now() - t0).toFixed(0)} ms`);
  t.equal(rx.received.length, 0);
});
