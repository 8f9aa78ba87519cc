import t from 'tap';
import { join } from 'node:path';
import { fixedClock } from '../../src/clock.js';
import { createStore } from '../../src/store/index.js';
import { chaosConfig, MAX_CHAOS_APPLICATIONS } from '../../src/webhooks/chaos.js';
import { tempDir } from '../tmp.js';
import { buildWebhookApp, deadPort, snapshot, startReceiver, T0 } from '../webhooks/receiver.js';

t.test('GET /__admin/webhooks/deliveries lists attempts and state, with filters', async (t) => {
  const rx = await startReceiver((_r, i) => (i === 0 ? 500 : 200));
  t.teardown(() => rx.close());
  const app = await buildWebhookApp({ config: { webhookUrl: rx.url } });
  t.teardown(() => app.close());
  await app.webhooks.enqueue('acme', snapshot({ item: { uuid: 'item-1' } }));
  await app.webhooks.idle();
  await app.webhooks.enqueue('beta', snapshot({ item: { uuid: 'item-2' } }));
  await app.webhooks.idle();

  let res = await app.inject({ url: '/__admin/webhooks/deliveries' });
  t.equal(res.statusCode, 200);
  const all = res.json().deliveries as Array<Record<string, unknown>>;
  t.equal(all.length, 2);
  t.match(all[0], {
    application: 'acme',
    order_item_uuid: 'item-1',
    order_item_version: 1,
    state: 'pending',
    next_attempt_at: '2026-01-15T10:00:10.000Z',
    attempts: [{ at: T0, status_code: 500 }],
    payload: { order_item_uuid: 'item-1', order_item_status: 'OK', order_id: '1234' },
  });
  t.match(all[1], { application: 'beta', state: 'delivered', attempts: [{ status_code: 200 }] });
  t.type((all[0]!.attempts as Array<{ duration_ms: unknown }>)[0]!.duration_ms, 'number');

  res = await app.inject({ url: '/__admin/webhooks/deliveries?order_item_uuid=item-2' });
  t.same(res.json().deliveries.map((d: { application: string }) => d.application), ['beta']);
  res = await app.inject({ url: '/__admin/webhooks/deliveries?application=acme' });
  t.same(res.json().deliveries.map((d: { order_item_uuid: string }) => d.order_item_uuid), ['item-1']);
  res = await app.inject({ url: '/__admin/webhooks/deliveries?application=nobody' });
  t.same(res.json(), { deliveries: [] });
  res = await app.inject({ url: '/__admin/webhooks/deliveries?state=pending' });
  t.equal(res.statusCode, 400);
  t.same(Object.keys(res.json()), ['code', 'message']);

  // POST /__admin/clock fast-forwards the retry.
  res = await app.inject({ method: 'POST', url: '/__admin/clock', payload: { advance: 'PT10S' } });
  t.equal(res.statusCode, 200);
  await app.webhooks.idle();
  res = await app.inject({ url: '/__admin/webhooks/deliveries?application=acme' });
  t.match(res.json().deliveries[0], { state: 'delivered', attempts: [{ status_code: 500 }, { status_code: 200, at: '2026-01-15T10:00:10.000Z' }] });
});

t.test('POST /__admin/webhooks/deliveries/{id}/redeliver sends it again; 404 for an unknown id', async (t) => {
  const rx = await startReceiver();
  t.teardown(() => rx.close());
  const app = await buildWebhookApp({ config: { webhookUrl: rx.url } });
  t.teardown(() => app.close());
  const d = (await app.webhooks.enqueue('acme', snapshot()))!;
  await app.webhooks.idle();
  let res = await app.inject({ method: 'POST', url: `/__admin/webhooks/deliveries/${d.id}/redeliver` });
  t.equal(res.statusCode, 202);
  t.match(res.json(), { delivery: { id: d.id, state: 'pending' } });
  await app.webhooks.idle();
  t.equal(rx.received.length, 2);
  t.equal(rx.received[1]!.body, rx.received[0]!.body);
  t.match(app.webhooks.get(d.id), { state: 'delivered', attempts: [{ status_code: 200 }, { status_code: 200 }] });
  res = await app.inject({ method: 'POST', url: '/__admin/webhooks/deliveries/whd_missing/redeliver' });
  t.equal(res.statusCode, 404);
  t.same(res.json(), { code: '1400', message: 'No webhook delivery whd_missing' });
});

t.test('PUT /__admin/webhooks/config per application or for all', async (t) => {
  const rxA = await startReceiver();
  const rxB = await startReceiver();
  t.teardown(async () => {
    await rxA.close();
    await rxB.close();
  });
  const app = await buildWebhookApp({ clock: fixedClock(T0) });
  t.teardown(() => app.close());
  t.equal(await app.webhooks.enqueue('acme', snapshot()), null, 'no URL anywhere: nothing to deliver');

  const withCreds = rxA.url.replace('http://', 'http://user:pa55@');
  let res = await app.inject({ method: 'PUT', url: '/__admin/webhooks/config', payload: { url: withCreds, secret: 'k1', application: 'acme' } });
  t.equal(res.statusCode, 200);
  t.same(res.json(), { application: 'acme', url: rxA.url.replace('http://', 'http://user:***@'), signed: true });
  await app.webhooks.enqueue('acme', snapshot());
  await app.webhooks.idle();
  t.equal(rxA.received.length, 1);
  t.equal(rxA.received[0]!.headers.authorization, `Basic ${Buffer.from('user:pa55').toString('base64')}`);
  t.ok(rxA.received[0]!.headers['x-service-signature']);
  t.equal(await app.webhooks.enqueue('beta', snapshot()), null, 'another application is not configured');

  res = await app.inject({ url: '/__admin/webhooks/config' });
  t.same(res.json(), { default: null, applications: { acme: { url: rxA.url.replace('http://', 'http://user:***@'), signed: true } } });

  res = await app.inject({ method: 'PUT', url: '/__admin/webhooks/config', payload: { url: rxB.url } });
  t.same(res.json(), { application: null, url: rxB.url, signed: false });
  await app.webhooks.enqueue('acme', snapshot());
  await app.webhooks.enqueue('beta', snapshot());
  await app.webhooks.idle();
  t.equal(rxB.received.length, 2, 'for all: every application, the earlier per-application one included');
  t.equal(rxA.received.length, 1);

  res = await app.inject({ method: 'PUT', url: '/__admin/webhooks/config', payload: { url: null } });
  t.same(res.json(), { application: null, url: null, signed: false });
  t.equal(await app.webhooks.enqueue('acme', snapshot()), null);
});

t.test('the configuration for all survives a restart, and beats the flags it replaced', async (t) => {
  const file = join(tempDir(t), 'state.json');
  const flags = { webhookUrl: 'http://127.0.0.1:9/from-flags' };
  const first = await buildWebhookApp({ config: flags, store: await createStore(file) });
  t.equal((await first.inject({ method: 'PUT', url: '/__admin/webhooks/config', payload: { url: 'http://127.0.0.1:9/from-control', secret: 's' } })).statusCode, 200);
  // No close: what a kill -9 leaves.
  const second = await buildWebhookApp({ config: flags, store: await createStore(file) });
  t.teardown(async () => {
    await second.close();
    await first.close();
  });
  t.same((await second.inject({ url: '/__admin/webhooks/config' })).json().default, { url: 'http://127.0.0.1:9/from-control', signed: true });
  await second.inject({ method: 'PUT', url: '/__admin/webhooks/config', payload: { url: null } });
  const third = await buildWebhookApp({ config: flags, store: await createStore(file) });
  t.teardown(() => third.close());
  t.equal((await third.inject({ url: '/__admin/webhooks/config' })).json().default, null, 'switched off for all stays off');
});

t.test('PUT /__admin/webhooks/config refuses bad input with 400 {code, message}', async (t) => {
  const app = await buildWebhookApp();
  t.teardown(() => app.close());
  const port = await deadPort();
  const cases: Array<[unknown, RegExp]> = [
    [{ url: 'not a url' }, /"url": "not a url" is not a URL/],
    [{ url: 'ftp://example.com/x' }, /must be an http or https URL/],
    [{ url: 'http://u:p%zz@127.0.0.1:9/x' }, /"url": the URL has user:password credentials that are not valid percent-encoding/],
    [{ url: null, secret: 'x' }, /"secret" needs a "url"/],
    [{ secret: 'x' }, /url/],
    [{ url: `http://127.0.0.1:${port}/`, colour: 'red' }, /colour/],
    [{ url: `http://127.0.0.1:${port}/`, application: '' }, /application/],
  ];
  for (const [payload, message] of cases) {
    const res = await app.inject({ method: 'PUT', url: '/__admin/webhooks/config', payload: payload as object });
    t.equal(res.statusCode, 400, JSON.stringify(payload));
    t.same(Object.keys(res.json()), ['code', 'message']);
    t.match(res.json().message, message);
  }
});

t.test('GET /__admin/scenarios lists the loaded scenarios', async (t) => {
  const app = await buildWebhookApp();
  t.teardown(() => app.close());
  const res = await app.inject({ url: '/__admin/scenarios' });
  t.equal(res.statusCode, 200);
  const list = res.json().scenarios as Array<{ name: string; description: string }>;
  t.equal(list.length, 8);
  t.same(list.map((s) => s.name), [...list.map((s) => s.name)].sort());
  t.same(list.find((s) => s.name === 'refusal'), {
    name: 'refusal',
    description: list.find((s) => s.name === 'refusal')!.description,
    from: 'PENDING',
    attach: { lead_booker_email: 'ko@example.com', on: 'payment' },
    steps: [{ after: 'PT0S', status: 'KO' }],
    file: 'scenarios/refusal.yaml',
    builtin: true,
  });
});

t.test('the webhooks plugin is a named plugin that needs the store', async (t) => {
  const app = await buildWebhookApp();
  t.teardown(() => app.close());
  t.ok(app.hasPlugin('webhooks'));
  t.ok(app.hasPlugin('scenarios'));
  t.ok(app.hasDecorator('webhooks'));
});

t.test('redeliver while an attempt is running is a 409', async (t) => {
  const rx = await startReceiver(() => 'hang');
  t.teardown(() => rx.close());
  const app = await buildWebhookApp({ config: { webhookUrl: rx.url }, webhooks: { timeoutMs: 300 } });
  t.teardown(() => app.close());
  const d = (await app.webhooks.enqueue('acme', snapshot()))!;
  while (rx.received.length === 0) await new Promise((r) => setTimeout(r, 5));
  const res = await app.inject({ method: 'POST', url: `/__admin/webhooks/deliveries/${d.id}/redeliver` });
  t.equal(res.statusCode, 409);
  t.match(res.json(), { code: '0', message: `Webhook delivery ${d.id} is being attempted right now: try again when the attempt ends` });
  await app.webhooks.idle();
  t.match(app.webhooks.get(d.id), { state: 'pending', attempts: [{ error: 'timeout after 300 ms' }] });
});

t.test(`chaos settings: at most ${MAX_CHAOS_APPLICATIONS} applications of their own, 409 past it (100,000 took 138 MB)`, async (t) => {
  const app = await buildWebhookApp();
  t.teardown(() => app.close());
  const put = (body: object) => app.inject({ method: 'PUT', url: '/__admin/webhooks/chaos', payload: body });
  for (let i = 1; i < MAX_CHAOS_APPLICATIONS; i++) app.webhooks.chaos.set(`app-${i}`, chaosConfig({ fail_first: 1 }));
  t.equal((await put({ application: 'last', fail_first: 2 })).statusCode, 200, `the ${MAX_CHAOS_APPLICATIONS}th`);
  const refused = await put({ application: 'one-more', fail_first: 2 });
  t.same([refused.statusCode, refused.json()], [409, {
    code: '0',
    message: `${MAX_CHAOS_APPLICATIONS} applications have chaos settings, the most there can be: DELETE /__admin/webhooks/chaos?application=… drops one, without ?application= all`,
  }]);
  t.notOk('one-more' in (await app.inject({ url: '/__admin/webhooks/chaos' })).json().applications, 'not set');
  t.match((await put({ application: 'app-1', fail_first: 3 })).json(), { application: 'app-1', fail_first: 3 }, 'an application with a setting can still change it');
  t.equal((await put({ duplicate: 0.5 })).statusCode, 200, 'the setting for all is not one of them');
  t.equal((await app.inject({ method: 'DELETE', url: '/__admin/webhooks/chaos?application=app-2' })).statusCode, 204);
  t.equal((await put({ application: 'one-more', fail_first: 2 })).statusCode, 200, 'room again once one is dropped');
  t.equal(Object.keys((await app.inject({ url: '/__admin/webhooks/chaos' })).json().applications).length, MAX_CHAOS_APPLICATIONS);
});
