import t from 'tap';
import { join } from 'node:path';
import { fixedClock } from '../../src/clock.js';
import { createStore } from '../../src/store/index.js';
import { chaosConfig, MAX_CHAOS_APPLICATIONS } from '../../src/webhooks/chaos.js';
import { tempDir } from '../tmp.js';
import { buildWebhookApp, deadPort, snapshot, startReceiver, T0 } from '../webhooks/receiver.js';
import { until } from '../until.js';

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
  const acme = { url: rxA.url.replace('http://', 'http://user:***@'), source: 'stored', set_at: T0, signing: 'own', signed: true };
  t.same(res.json(), { application: 'acme', ...acme });
  await app.webhooks.enqueue('acme', snapshot());
  await app.webhooks.idle();
  t.equal(rxA.received.length, 1);
  t.equal(rxA.received[0]!.headers.authorization, `Basic ${Buffer.from('user:pa55').toString('base64')}`);
  t.ok(rxA.received[0]!.headers['x-service-signature']);
  t.equal(await app.webhooks.enqueue('beta', snapshot()), null, 'another application is not configured');

  res = await app.inject({ url: '/__admin/webhooks/config' });
  t.same(res.json(), { default: null, applications: { acme }, listeners: [] });

  res = await app.inject({ method: 'PUT', url: '/__admin/webhooks/config', payload: { url: rxB.url } });
  t.same(res.json(), { application: null, url: rxB.url, source: 'stored', set_at: T0, signing: 'none', signed: false }, 'no secret anywhere: unsigned');
  await app.webhooks.enqueue('acme', snapshot());
  await app.webhooks.enqueue('beta', snapshot());
  await app.webhooks.idle();
  t.equal(rxB.received.length, 2, 'for all: every application, the earlier per-application one included');
  t.equal(rxA.received.length, 1);

  res = await app.inject({ method: 'PUT', url: '/__admin/webhooks/config', payload: { url: null } });
  t.same(res.json(), { application: null, url: null, source: null, set_at: null, signing: 'none', signed: false }, 'no flag to go back to: none');
  t.equal(await app.webhooks.enqueue('acme', snapshot()), null);
});

t.test('one rule for where webhooks go: flags win at start, a stored receiver after it is set, null goes back to the flag', async (t) => {
  const rxFlag = await startReceiver();
  const rxStored = await startReceiver();
  t.teardown(async () => {
    await rxFlag.close();
    await rxStored.close();
  });
  const file = join(tempDir(t), 'state.json');
  const flags = { webhookUrl: rxFlag.url, webhookSecret: 'server-secret' };
  type App = Awaited<ReturnType<typeof buildWebhookApp>>;
  let running: App | null = null;
  t.teardown(() => running?.close());
  // A restart: the running server stops, another starts on its state file.
  const start = async (config: Record<string, unknown>) => {
    await running?.close();
    running = await buildWebhookApp({ config, store: await createStore(file), clock: fixedClock(T0) });
    return running;
  };
  const config = async (app: App) => (await app.inject({ url: '/__admin/webhooks/config' })).json();
  const deliver = async (app: App, application: string) => {
    await app.webhooks.enqueue(application, snapshot());
    await app.webhooks.idle();
  };

  // A run without flags stores a receiver for all.
  const first = await start({});
  await first.inject({ method: 'PUT', url: '/__admin/webhooks/config', payload: { url: rxStored.url } });
  // A restart with --webhook-url and --webhook-secret: the flags win.
  const second = await start(flags);
  t.same((await config(second)).default, { url: rxFlag.url, source: 'flag', set_at: null, signing: 'server', signed: true }, 'the flag, as the banner says');
  await deliver(second, 'acme');
  t.equal(rxFlag.received.length, 1, 'delivered where GET /__admin/webhooks/config says');
  t.equal(rxStored.received.length, 0, 'not to the receiver stored by the earlier run');
  t.ok(rxFlag.received[0]!.headers['x-service-signature'], 'signed with --webhook-secret');

  // A PUT then wins until the next start with the flag; without its own secret it is signed with the server's.
  let res = await second.inject({ method: 'PUT', url: '/__admin/webhooks/config', payload: { url: rxStored.url } });
  t.same(res.json(), { application: null, url: rxStored.url, source: 'stored', set_at: T0, signing: 'server', signed: true });
  await deliver(second, 'acme');
  t.equal(rxStored.received.length, 1, 'the stored receiver took over');
  t.ok(rxStored.received[0]!.headers['x-service-signature'], 'a receiver without its own secret is signed with the server secret');

  // An application's own receiver without a secret is signed with the server's secret too.
  res = await second.inject({ method: 'PUT', url: '/__admin/webhooks/config', payload: { url: rxFlag.url, application: 'beta' } });
  t.match(res.json(), { application: 'beta', url: rxFlag.url, source: 'stored', signing: 'server', signed: true });
  await deliver(second, 'beta');
  t.ok(rxFlag.received[1]!.headers['x-service-signature'], "the application's own receiver is signed with the server secret");

  // null: back to the flag.
  res = await second.inject({ method: 'PUT', url: '/__admin/webhooks/config', payload: { url: null } });
  t.match(res.json(), { application: null, url: rxFlag.url, source: 'flag' }, 'url null goes back to --webhook-url');

  // A stored receiver survives a restart without the flag.
  await second.inject({ method: 'PUT', url: '/__admin/webhooks/config', payload: { url: rxStored.url, secret: 'own' } });
  const third = await start({});
  t.same((await config(third)).default, { url: rxStored.url, source: 'stored', set_at: T0, signing: 'own', signed: true }, 'kept over a restart without flags');
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
  await until('the attempt reached the receiver', () => rx.received.length > 0);
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
  for (let i = 1; i < MAX_CHAOS_APPLICATIONS; i++) await app.webhooks.chaos.set(`app-${i}`, chaosConfig({ fail_first: 1 }));
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
