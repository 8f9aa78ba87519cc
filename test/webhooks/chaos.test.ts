import t, { type Test } from 'tap';
import { join } from 'node:path';
import { tempDir } from '../tmp.js';
import { fixedClock } from '../../src/clock.js';
import { createStore } from '../../src/store/index.js';
import { chaosConfig } from '../../src/webhooks/chaos.js';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.js';
import { buildWebhookApp, snapshot, startReceiver, T0 } from './receiver.js';

const APP = 'acme';

async function setup(t: Test, seed = 1) {
  const rx = await startReceiver();
  const clock = fixedClock(T0);
  const d = new WebhookDispatcher({ store: await createStore('memory'), clock, headerPrefix: 'X-Service-', flags: { url: rx.url, secret: 'shh' }, timeoutMs: 500, seed, schedule: [1000, 1000, 1000] });
  d.start();
  t.teardown(async () => {
    await d.close();
    await rx.close();
  });
  const advance = async (ms: number) => {
    clock.advance(ms);
    await d.idle();
  };
  return { rx, d, advance };
}

t.test('duplicate: a delivered webhook is sent again, same id and body, and the log marks it', async (t) => {
  const { rx, d } = await setup(t);
  await d.chaos.set(APP, chaosConfig({ duplicate: 1 }));
  const sent = await d.enqueue(APP, snapshot());
  await d.idle();
  t.equal(rx.received.length, 2);
  t.equal(rx.received[0]!.body, rx.received[1]!.body, 'the same body');
  t.equal(rx.received[0]!.headers['webhook-id'], rx.received[1]!.headers['webhook-id'], 'the same delivery id');
  t.match(d.get(sent!.id), { state: 'delivered', attempts: [{ status_code: 200 }, { status_code: 200, chaos: 'duplicate' }] });
  t.notOk('chaos' in d.get(sent!.id)!.attempts[0]!, 'the first send is no chaos');
  await d.enqueue('other', snapshot({ item: { uuid: 'b1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d' } }));
  await d.idle();
  t.equal(rx.received.length, 3, 'another application is not affected');
});

t.test('reorder: after a newer version is delivered, the previous one is sent again', async (t) => {
  const { rx, d } = await setup(t);
  await d.chaos.set(undefined, chaosConfig({ reorder: true }));
  const v1 = await d.enqueue(APP, snapshot({ item: { version: 1, status: 'PENDING' } }));
  await d.idle();
  await d.enqueue(APP, snapshot({ item: { version: 2, status: 'OK' } }));
  await d.idle();
  t.same(rx.received.map((r) => JSON.parse(r.body).order_item_version), ['1', '2', '1'], 'version 2, then version 1 again');
  t.match(d.get(v1!.id), { state: 'delivered', attempts: [{ status_code: 200 }, { status_code: 200, chaos: 'reorder' }] });
});

t.test('fail_first: the first attempts fail without a request, the retries follow the schedule', async (t) => {
  const { rx, d, advance } = await setup(t);
  await d.chaos.set(APP, chaosConfig({ fail_first: 2 }));
  const sent = await d.enqueue(APP, snapshot());
  await d.idle();
  t.equal(rx.received.length, 0);
  t.match(d.get(sent!.id), { state: 'pending', attempts: [{ error: /^chaos: fail_first/, chaos: 'fail_first' }] });
  await advance(1000);
  t.equal(rx.received.length, 0, 'the second attempt fails too');
  await advance(1000);
  t.equal(rx.received.length, 1);
  t.match(d.get(sent!.id), { state: 'delivered', attempts: [{ chaos: 'fail_first' }, { chaos: 'fail_first' }, { status_code: 200 }] });
});

t.test('delay: an attempt waits a time in the range, and says so', async (t) => {
  const { rx, d } = await setup(t);
  await d.chaos.set(APP, chaosConfig({ delay_ms: [30, 30] }));
  const t0 = performance.now();
  const sent = await d.enqueue(APP, snapshot());
  await d.idle();
  t.ok(performance.now() - t0 >= 29, 'it waited');
  t.equal(rx.received.length, 1);
  t.match(d.get(sent!.id)?.attempts, [{ status_code: 200, chaos: 'delay' }]);
});

t.test('the same seed gives the same duplicates; another seed others', async (t) => {
  const pattern = async (seed: number) => {
    const { d } = await setup(t, seed);
    await d.chaos.set(APP, chaosConfig({ duplicate: 0.5 }));
    const out: boolean[] = [];
    for (let i = 0; i < 16; i++) {
      const x = await d.enqueue(APP, snapshot({ item: { uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}` } }));
      await d.idle();
      out.push(d.get(x!.id)!.attempts.length === 2);
    }
    return out;
  };
  const a = await pattern(7);
  t.same(await pattern(7), a, 'seed 7 twice: the same deliveries duplicated');
  t.ok(a.includes(true) && a.includes(false), `about half are duplicated: ${a.filter(Boolean).length} of 16`);
  t.not(JSON.stringify(await pattern(8)), JSON.stringify(a), 'seed 8: another pattern');
});

t.test('PUT, GET and DELETE /__admin/webhooks/chaos', async (t) => {
  const app = await buildWebhookApp();
  t.teardown(() => app.close());
  const put = (payload: object) => app.inject({ method: 'PUT', url: '/__admin/webhooks/chaos', payload });
  const res = await put({ application: 'shop', duplicate: 0.25, delay_ms: [200, 100] });
  t.equal(res.statusCode, 200);
  t.same(res.json(), { application: 'shop', duplicate: 0.25, reorder: false, delay_ms: [100, 200], fail_first: 0 });
  await put({ reorder: true });
  t.same((await app.inject({ url: '/__admin/webhooks/chaos' })).json(), {
    all: { duplicate: 0, reorder: true, delay_ms: [0, 0], fail_first: 0 },
    applications: { shop: { duplicate: 0.25, reorder: false, delay_ms: [100, 200], fail_first: 0 } },
  });
  for (const bad of [{ duplicate: 2 }, { delay_ms: [1] }, { fail_first: -1 }, { chaos: true }]) {
    const r = await put(bad);
    t.equal(r.statusCode, 400, JSON.stringify(bad));
    t.match(r.json(), { code: '0', message: String });
  }
  t.equal((await app.inject({ method: 'DELETE', url: '/__admin/webhooks/chaos?application=shop' })).statusCode, 204);
  t.same((await app.inject({ url: '/__admin/webhooks/chaos' })).json().applications, {});
  await app.inject({ method: 'POST', url: '/__admin/reset', payload: {} });
  t.same((await app.inject({ url: '/__admin/webhooks/chaos' })).json(), { all: null, applications: {} }, 'a full reset ends every chaos');
});

t.test('chaos settings are kept in the store: a restart keeps them, a reset drops them', async (t) => {
  const file = join(tempDir(t), 'state.json');
  const first = await buildWebhookApp({ store: await createStore(file) });
  await first.inject({ method: 'PUT', url: '/__admin/webhooks/chaos', payload: { application: APP, fail_first: 2 } });
  await first.inject({ method: 'PUT', url: '/__admin/webhooks/chaos', payload: { reorder: true } });
  await first.close();
  const second = await buildWebhookApp({ store: await createStore(file) });
  t.teardown(() => second.close());
  t.match((await second.inject({ url: '/__admin/webhooks/chaos' })).json(), { all: { reorder: true }, applications: { [APP]: { fail_first: 2 } } }, 'both came back');
  await second.inject({ method: 'POST', url: '/__admin/reset', payload: { application: APP } });
  t.same((await second.inject({ url: '/__admin/webhooks/chaos' })).json().applications, {}, "a reset of the application drops its chaos");
  await second.inject({ method: 'POST', url: '/__admin/reset', payload: {} });
  await new Promise((r) => setTimeout(r, 50));
  t.equal((await second.inject({ url: '/__admin/webhooks/chaos' })).json().all, null, 'a reset of everything drops the one for all');
});
