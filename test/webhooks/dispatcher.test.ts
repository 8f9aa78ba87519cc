import { createHmac } from 'node:crypto';
import t, { type Test } from 'tap';
import { Webhook } from 'standardwebhooks';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fixedClock, systemClock } from '../../src/clock.js';
import { createStore } from '../../src/store/index.js';
import { WebhookDispatcher, type DispatcherOptions } from '../../src/webhooks/dispatcher.js';
import { buildPayload, serializePayload } from '../../src/webhooks/payload.js';
import { deadPort, snapshot, startReceiver, T0, type Answer, type Received } from './receiver.js';
import { until } from '../until.js';

const APP = 'acme';
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();

async function setup(t: Test, answer: (r: Received, i: number) => Answer, opts: Partial<DispatcherOptions> = {}) {
  const rx = await startReceiver(answer);
  const clock = fixedClock(T0);
  const store = await createStore('memory');
  const d = new WebhookDispatcher({ store, clock, headerPrefix: 'X-Service-', flags: { url: rx.url, secret: 'shh' }, timeoutMs: 200, ...opts });
  d.start();
  t.teardown(async () => {
    await d.close();
    await rx.close();
  });
  /** Moves the server clock (the dispatcher hears it through Clock.onChange) and waits for the attempts it made due. */
  const advance = async (ms: number) => {
    clock.advance(ms);
    await d.idle();
  };
  return { rx, clock, store, d, advance };
}

/** A dispatcher sending to a bare server whose handler decides when to answer (a fixed clock, no secret). */
async function withServer(t: Test, handler: http.RequestListener) {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const store = await createStore('memory');
  const d = new WebhookDispatcher({ store, clock: fixedClock(T0), headerPrefix: 'X-Service-', flags: { url, secret: null } });
  t.teardown(async () => {
    await d.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  d.start();
  return { store, d };
}

t.test('500, 201, no answer, then 200: four attempts on the schedule, following the server clock', async (t) => {
  const answers: Answer[] = [500, 201, 'hang', 200];
  const { rx, d, advance } = await setup(t, (_r, i) => answers[i] ?? 200);
  const snap = snapshot();
  const created = await d.enqueue(APP, snap);
  t.ok(created);
  await d.idle();
  const id = created!.id;
  t.match(d.get(id), { state: 'pending', next_attempt_at: at(10_000), attempts: [{ at: T0, status_code: 500 }] });

  await advance(9_999);
  t.equal(rx.received.length, 1, 'not before the 10 s retry is due');
  await advance(1);
  t.match(d.get(id), { state: 'pending', next_attempt_at: at(40_000), attempts: [{}, { at: at(10_000), status_code: 201 }] }, '201 is not 200');
  await advance(30_000);
  const third = d.get(id)!.attempts[2]!;
  t.match(third, { at: at(40_000), error: 'timeout after 200 ms' });
  t.equal(third.status_code, undefined);
  t.ok(third.duration_ms >= 190, 'the timeout was waited for');
  t.equal(d.get(id)!.next_attempt_at, at(160_000), '2 min after the third attempt');
  await advance(120_000);
  const final = d.get(id)!;
  t.equal(final.state, 'delivered');
  t.equal(final.next_attempt_at, null);
  t.same(final.attempts.map((a) => a.status_code ?? a.error), [500, 201, 'timeout after 200 ms', 200]);
  t.equal(rx.received.length, 4);

  const body = serializePayload(buildPayload(snap));
  for (const r of rx.received) {
    t.equal(r.body, body, 'the same bytes every time');
    t.equal(r.headers['content-type'], 'application/json');
    t.equal(r.headers['webhook-id'], id, 'one message id across retries');
    const ts = r.headers['x-service-webhook-timestamp'] as string;
    t.equal(r.headers['x-service-signature'], `t=${ts},v1=${createHmac('sha256', 'shh').update(`${ts}.${r.body}`).digest('hex')}`);
    t.ok(Math.abs(Number(ts) - Date.now() / 1000) < 60, 'wall-clock timestamp, not the server clock');
    t.same(new Webhook('shh', { format: 'raw' }).verify(r.body, r.headers as Record<string, string>), JSON.parse(body));
  }
  await advance(3_600_000);
  t.equal(rx.received.length, 4, 'nothing after a 200');
});

t.test('failed after the last retry of the schedule', async (t) => {
  const { rx, d, advance } = await setup(t, () => 500, { schedule: ['PT1S', 2000] });
  const { id } = (await d.enqueue(APP, snapshot()))!;
  await d.idle();
  await advance(1000);
  await advance(2000);
  const got = d.get(id)!;
  t.equal(got.state, 'failed');
  t.equal(got.next_attempt_at, null);
  t.same(got.attempts.map((a) => a.at), [T0, at(1000), at(3000)]);
  await advance(86_400_000);
  t.equal(rx.received.length, 3);
});

t.test('the default schedule is 10 s, 30 s, 2 min, 10 min, 1 h, then failed', async (t) => {
  const { d, advance } = await setup(t, () => 503);
  const { id } = (await d.enqueue(APP, snapshot()))!;
  await d.idle();
  const gaps = [10_000, 30_000, 120_000, 600_000, 3_600_000];
  for (const gap of gaps) await advance(gap);
  const got = d.get(id)!;
  t.equal(got.attempts.length, 6);
  t.equal(got.state, 'failed');
  const times = got.attempts.map((a) => Date.parse(a.at));
  t.same(times.slice(1).map((x, i) => x - times[i]!), gaps);
});

t.test('per item, versions go out in order; other items do not wait', async (t) => {
  const itemA = 'aaaaaaaa-0000-4000-8000-000000000001';
  const itemB = 'bbbbbbbb-0000-4000-8000-000000000002';
  let firstA = true;
  const { rx, d, advance } = await setup(t, (r) => {
    const p = JSON.parse(r.body) as { order_item_uuid: string };
    if (p.order_item_uuid === itemA && firstA) {
      firstA = false;
      return 500;
    }
    return 200;
  });
  // Version 2 is enqueued first: the queue still sends version 1 first.
  const v2 = (await d.enqueue(APP, snapshot({ item: { uuid: itemA, version: 2, status: 'REFUND_STARTED' } })))!;
  const v1 = (await d.enqueue(APP, snapshot({ item: { uuid: itemA, version: 1, status: 'OK' } })))!;
  const b1 = (await d.enqueue(APP, snapshot({ item: { uuid: itemB, version: 1, status: 'OK' } })))!;
  await d.idle();
  t.equal(d.get(b1.id)!.state, 'delivered', 'item B is not held up by item A');
  t.equal(d.get(v1.id)!.attempts.length, 1);
  t.equal(d.get(v2.id)!.attempts.length, 0, 'version 2 waits while version 1 is pending');
  await advance(10_000);
  t.equal(d.get(v1.id)!.state, 'delivered');
  t.equal(d.get(v2.id)!.state, 'delivered');
  t.equal(d.get(v2.id)!.attempts[0]!.at, at(10_000));
  const seenA = rx.received.map((r) => JSON.parse(r.body) as Record<string, string>).filter((p) => p.order_item_uuid === itemA);
  t.same(seenA.map((p) => p.order_item_version), ['1', '1', '2']);
});

t.test('a failed earlier version lets the later one go', async (t) => {
  const { rx, d, advance } = await setup(t, (r) => ((JSON.parse(r.body) as Record<string, string>).order_item_version === '1' ? 500 : 200), { schedule: ['PT5S'] });
  const v1 = (await d.enqueue(APP, snapshot({ item: { version: 1 } })))!;
  const v2 = (await d.enqueue(APP, snapshot({ item: { version: 2, status: 'REFUNDED' } })))!;
  await d.idle();
  t.equal(rx.received.length, 1);
  await advance(5000);
  t.equal(d.get(v1.id)!.state, 'failed');
  t.equal(d.get(v2.id)!.state, 'delivered');
});

t.test('redeliver sends again now, with a fresh round of retries; unknown ids are 404', async (t) => {
  const { rx, d, advance } = await setup(t, (_r, i) => (i === 1 ? 500 : 200), { schedule: ['PT1S'] });
  const { id } = (await d.enqueue(APP, snapshot()))!;
  await d.idle();
  t.equal(d.get(id)!.state, 'delivered');
  const again = await d.redeliver(id);
  t.match(again, { state: 'pending', next_attempt_at: T0, round_start: 1 });
  await d.idle();
  t.match(d.get(id), { state: 'pending', attempts: [{ status_code: 200 }, { status_code: 500 }] });
  await advance(1000);
  t.match(d.get(id), { state: 'delivered', attempts: [{}, {}, { status_code: 200, at: at(1000) }] });
  t.equal(rx.received.length, 3);
  await t.rejects(d.redeliver('whd_nope'), { statusCode: 404, message: 'No webhook delivery whd_nope' });
});

t.test('no URL: nothing is recorded; a URL removed later fails the attempt', async (t) => {
  const clock = fixedClock(T0);
  const store = await createStore('memory');
  const d = new WebhookDispatcher({ store, clock, headerPrefix: 'X-Service-' });
  t.teardown(() => d.close());
  d.start();
  t.equal(await d.enqueue(APP, snapshot()), null);
  t.same(d.list(), []);
  const port = await deadPort();
  await d.configure(APP, { url: `http://127.0.0.1:${port}/`, secret: null });
  const { id } = (await d.enqueue(APP, snapshot()))!;
  await d.idle();
  t.match(d.get(id)!.attempts[0], { error: /^ECONNREFUSED/ });
  await d.configure(APP, null);
  clock.advance(10_000);
  await d.idle();
  t.match(d.get(id)!.attempts[1], { error: 'no webhook URL is configured for this application' });
});

t.test('configure for all replaces the default and drops per-application settings', async (t) => {
  const rxA = await startReceiver();
  const rxB = await startReceiver();
  t.teardown(async () => {
    await rxA.close();
    await rxB.close();
  });
  const store = await createStore('memory');
  const d = new WebhookDispatcher({ store, clock: fixedClock(T0), headerPrefix: 'X-Service-', flags: { url: rxA.url, secret: null } });
  t.teardown(() => d.close());
  await d.configure('other', { url: rxB.url, secret: 'x' });
  t.same(d.target('other'), { url: rxB.url, secret: 'x' });
  t.same(d.target(APP), { url: rxA.url, secret: null });
  await d.configure(undefined, { url: rxB.url, secret: null });
  t.same(d.target('other'), { url: rxB.url, secret: null });
  t.equal(store.tenant('other').webhookConfig, null);
  await d.enqueue(APP, snapshot());
  await d.idle();
  t.equal(rxB.received.length, 1);
  t.equal(rxB.received[0]!.headers['webhook-signature'], undefined, 'no secret: no signature headers');
  t.equal(rxA.received.length, 0);
});

t.test('a receiver gate fails attempts without sending (scenario "receiver down")', async (t) => {
  let down = true;
  const { rx, d, advance } = await setup(t, () => 200);
  d.setGate(() => (down ? 'receiver down (scenario receiver-down)' : null));
  const { id } = (await d.enqueue(APP, snapshot()))!;
  await d.idle();
  t.match(d.get(id)!.attempts, [{ error: 'receiver down (scenario receiver-down)', duration_ms: 0 }]);
  t.equal(rx.received.length, 0);
  down = false;
  await advance(10_000);
  t.equal(d.get(id)!.state, 'delivered');
});

t.test('a reset drops the tenant\'s deliveries and their queue', async (t) => {
  const { rx, d, store, advance } = await setup(t, () => 500);
  await d.enqueue(APP, snapshot());
  await d.enqueue('keep', snapshot());
  await d.idle();
  await store.reset(APP);
  t.same(d.list({ application: APP }), []);
  await advance(10_000);
  t.equal(rx.received.length, 3, 'only the other application retried');
  t.same(store.applications(), ['keep'], 'the reset tenant was not recreated');
});

t.test('delivery ids do not repeat after a reset restarts the sequence', async (t) => {
  const { d, store } = await setup(t, () => 200);
  const first = (await d.enqueue(APP, snapshot({ item: { uuid: 'item-before' } })))!;
  await d.idle();
  await store.reset(APP);
  const second = (await d.enqueue(APP, snapshot({ item: { uuid: 'item-after' } })))!;
  t.equal(second.seq, first.seq, 'the sequence started again');
  t.not(second.id, first.id, 'a receiver deduplicating on the id still sees the new event');
});

t.test('list filters by application and order item', async (t) => {
  const { d } = await setup(t, () => 200);
  await d.enqueue(APP, snapshot({ item: { uuid: 'i-1' } }));
  await d.enqueue(APP, snapshot({ item: { uuid: 'i-2' } }));
  await d.enqueue('beta', snapshot({ item: { uuid: 'i-1' } }));
  await d.idle();
  t.equal(d.list().length, 3);
  t.same(d.list({ application: APP }).map((x) => x.order_item_uuid), ['i-1', 'i-2']);
  t.same(d.list({ order_item_uuid: 'i-1' }).map((x) => x.application).sort(), [APP, 'beta']);
  t.same(d.list({ application: 'beta', order_item_uuid: 'i-2' }), []);
  t.equal(new Set(d.list().map((x) => x.id)).size, 3, 'ids are unique across applications');
});

t.test('with a real clock, a timer fires the retry when it is due', async (t) => {
  const rx = await startReceiver((_r, i) => (i === 0 ? 500 : 200));
  const store = await createStore('memory');
  const d = new WebhookDispatcher({ store, clock: systemClock(), headerPrefix: 'X-Service-', flags: { url: rx.url, secret: null }, schedule: [60] });
  t.teardown(async () => {
    await d.close();
    await rx.close();
  });
  d.start();
  const { id } = (await d.enqueue(APP, snapshot()))!;
  const started = Date.now();
  while (d.get(id)!.state === 'pending' && Date.now() - started < 3000) await new Promise((r) => setTimeout(r, 10));
  t.equal(d.get(id)!.state, 'delivered');
  const [a, b] = d.get(id)!.attempts.map((x) => Date.parse(x.at));
  t.ok(b! - a! >= 60, `retried after the 60 ms delay (${b! - a!} ms)`);
});

t.test('different items are sent at the same time', async (t) => {
  let open = 0;
  let most = 0;
  const { d } = await withServer(t, (req, res) => {
    open++;
    most = Math.max(most, open);
    req.resume();
    setTimeout(() => {
      open--;
      res.end();
    }, 100);
  });
  const all = await Promise.all([1, 2, 3, 4, 5].map((i) => d.enqueue(APP, snapshot({ item: { uuid: `item-${i}` } }))));
  await d.idle();
  t.equal(most, 5, 'five requests open at once');
  t.ok(all.every((x) => d.get(x!.id)!.state === 'delivered'));
});

t.test('closing during an attempt ends it at once and leaves the delivery pending', async (t) => {
  const rx = await startReceiver(() => 'hang');
  t.teardown(() => rx.close());
  const store = await createStore('memory');
  const d = new WebhookDispatcher({ store, clock: fixedClock(T0), headerPrefix: 'X-Service-', flags: { url: rx.url, secret: null } });
  d.start();
  const { id } = (await d.enqueue(APP, snapshot()))!;
  await until('the attempt reached the receiver', () => rx.received.length > 0);
  const started = Date.now();
  await d.close();
  t.ok(Date.now() - started < 1000, 'did not wait for the 5 s timeout');
  t.match(d.get(id), { state: 'pending', attempts: [], next_attempt_at: T0 }, 'resumed by the next start');
  d.tick();
  t.equal(rx.received.length, 1, 'a closed dispatcher sends nothing');
});

t.test('answers that arrive together are saved in one store write, each delivery with its own attempt', async (t) => {
  // The receiver holds every answer until all 20 requests are in, then answers them at once.
  const held: http.ServerResponse[] = [];
  const { store, d } = await withServer(t, (req, res) => {
    req.resume();
    held.push(res);
    if (held.length === 20) for (const r of held) r.end();
  });
  const all = await Promise.all(Array.from({ length: 20 }, (_, i) => d.enqueue(APP, snapshot({ item: { uuid: `item-${i}` } }))));
  const before = store.stats.writes;
  await d.idle();
  t.ok(store.stats.writes - before < 10, `20 answers, ${store.stats.writes - before} writes`);
  t.ok(all.every((x) => d.get(x!.id)!.state === 'delivered' && d.get(x!.id)!.attempts.length === 1));
});

t.test('closing saves the attempts whose answers already arrived', async (t) => {
  const rx = await startReceiver(() => 200);
  t.teardown(() => rx.close());
  const store = await createStore('memory');
  const d = new WebhookDispatcher({ store, clock: fixedClock(T0), headerPrefix: 'X-Service-', flags: { url: rx.url, secret: null } });
  let answered!: () => void;
  const answer = new Promise<void>((resolve) => (answered = resolve));
  const send = d.sender.send.bind(d.sender);
  d.sender.send = async (...args) => {
    const result = await send(...args);
    answered();
    return result;
  };
  d.start();
  const { id } = (await d.enqueue(APP, snapshot()))!;
  await answer;
  // A tick queued now runs after the dispatcher's promise callbacks and before its next save.
  await new Promise((r) => process.nextTick(r));
  t.equal(d.get(id)!.attempts.length, 0, 'answered, not saved yet');
  await d.close();
  t.match(d.get(id), { state: 'delivered', next_attempt_at: null, attempts: [{ at: T0, status_code: 200 }] });
});
