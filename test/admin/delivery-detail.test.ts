// GET /__admin/webhooks/deliveries: each attempt's headers as a real receiver got them (signature
// shown, secret and password never), the payload, and why a pending delivery waits.
import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { buildWebhookApp, snapshot, startReceiver, T0 } from '../webhooks/receiver.js';
import { bookOrder, overInject } from '../book-order.js';

const deliveries = async (app: FastifyInstance) => (await app.inject({ url: '/__admin/webhooks/deliveries' })).json().deliveries;

t.test('each attempt shows the headers sent, signature included; never the secret or the password', async (t) => {
  const rx = await startReceiver();
  t.teardown(() => rx.close());
  const app = await buildWebhookApp();
  t.teardown(() => app.close());
  const url = rx.url.replace('http://', 'http://hook-user:hook-pass@');
  t.equal((await app.inject({ method: 'PUT', url: '/__admin/webhooks/config', payload: { application: 'acme', url, secret: 'whsec-not-shown' } })).statusCode, 200);
  await app.webhooks.enqueue('acme', snapshot());
  await app.webhooks.idle();
  t.equal(rx.received.length, 1);
  const got = rx.received[0]!;
  const [d] = await deliveries(app);
  t.equal(d.state, 'delivered');
  t.equal(d.waiting, null, 'a delivered one does not wait');
  const sent = d.attempts[0].headers as Record<string, string>;
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'content-type', 'user-agent']) t.equal(sent[name], got.headers[name], `${name} as the receiver got it`);
  t.equal(sent['webhook-id'], d.id);
  t.match(sent['webhook-signature'], /^v1,[A-Za-z0-9+/]+=*$/);
  t.match(sent['X-Service-Signature'], /^t=\d+,v1=[0-9a-f]{64}$/);
  t.equal(sent['X-Service-Signature'], got.headers['x-service-signature']);
  t.equal(got.headers.authorization, `Basic ${Buffer.from('hook-user:hook-pass').toString('base64')}`, 'the receiver got the credentials');
  t.equal(sent.authorization, 'Basic ***', 'the log shows their scheme only');
  t.same(d.payload, JSON.parse(got.body), 'the payload is the body the receiver got');
  const text = JSON.stringify(await deliveries(app));
  t.notOk(text.includes('whsec-not-shown'), 'no secret');
  t.notOk(text.includes('hook-pass') || text.includes(Buffer.from('hook-user:hook-pass').toString('base64')), 'no password');
});

t.test('why a delivery waits: its retry, an earlier version, no receiver, a chaos delay', async (t) => {
  let answer = 500;
  const rx = await startReceiver(() => answer);
  t.teardown(() => rx.close());
  const app = await buildWebhookApp();
  t.teardown(() => app.close());
  await app.inject({ method: 'PUT', url: '/__admin/webhooks/config', payload: { application: 'acme', url: rx.url } });
  const v1 = (await app.webhooks.enqueue('acme', snapshot({ item: { version: 1, status: 'PENDING' } })))!;
  await app.webhooks.idle();
  let [first] = await deliveries(app);
  t.same(first.waiting, { reason: 'retry', message: 'next attempt at 2026-01-15T10:00:10.000Z (attempt 2 of 6)', next_attempt_at: '2026-01-15T10:00:10.000Z', after: null });

  const v2 = (await app.webhooks.enqueue('acme', snapshot({ item: { version: 2, status: 'OK' } })))!;
  await app.webhooks.idle();
  t.equal(rx.received.length, 1, 'version 2 is held back');
  const second = (await deliveries(app))[1];
  t.equal(second.id, v2.id);
  t.equal(second.next_attempt_at, T0, 'its own due time has come');
  t.match(second.waiting, { reason: 'ordering', after: v1.id, next_attempt_at: null });
  t.equal(second.waiting.message, `waiting for version 1 of this order item to be delivered first (${v1.id}: next attempt at 2026-01-15T10:00:10.000Z (attempt 2 of 6))`);

  // The receiver dropped: the retry will fail without a request.
  await app.inject({ method: 'PUT', url: '/__admin/webhooks/config', payload: { application: 'acme', url: null } });
  [first] = await deliveries(app);
  t.match(first.waiting, { reason: 'no_receiver', message: 'receiver not configured (PUT /__admin/webhooks/config): attempt 2 of 6, at 2026-01-15T10:00:10.000Z, fails without a request' });

  // Back, and answering: both go, in order; nothing waits.
  answer = 200;
  await app.inject({ method: 'PUT', url: '/__admin/webhooks/config', payload: { application: 'acme', url: rx.url } });
  await app.inject({ method: 'POST', url: '/__admin/clock', payload: { advance: 'PT10S' } });
  await app.webhooks.idle();
  t.same((await deliveries(app)).map((d: { state: string; waiting: unknown }) => [d.state, d.waiting]), [['delivered', null], ['delivered', null]]);

  // A chaos delay holds the attempt under way.
  await app.inject({ method: 'PUT', url: '/__admin/webhooks/chaos', payload: { application: 'acme', delay_ms: [800, 800] } });
  const held = (await app.webhooks.enqueue('acme', snapshot({ item: { uuid: 'other-item' } })))!;
  let seen;
  for (let i = 0; i < 50 && seen?.reason !== 'chaos_delay'; i++) {
    await new Promise((r) => setTimeout(r, 20));
    seen = (await deliveries(app)).find((d: { id: string }) => d.id === held.id).waiting;
  }
  t.same(seen, { reason: 'chaos_delay', message: 'chaos delay: the attempt under way waits 800–800 ms before it is sent', next_attempt_at: null, after: null });
  await app.webhooks.idle();

  // Redeliver answers the delivery with its reason.
  const res = await app.inject({ method: 'POST', url: `/__admin/webhooks/deliveries/${v1.id}/redeliver` });
  t.equal(res.statusCode, 202);
  t.match(res.json().delivery, { id: v1.id, state: 'pending', waiting: { reason: 'due', message: 'attempt 1 of 6 starts now' } });
  await app.webhooks.idle();
});

t.test('the control API document describes the new fields', async (t) => {
  const app = await buildWebhookApp();
  t.teardown(() => app.close());
  const doc = (await app.inject({ url: '/__admin/docs/json' })).json();
  const deliveries = doc.paths['/__admin/webhooks/deliveries'].get.responses['200'].content['application/json'].schema;
  const item = deliveries.properties.deliveries.items;
  t.ok(item.properties.waiting, 'waiting');
  t.ok(item.properties.attempts.items.properties.headers, "each attempt's headers");
  t.ok(doc.paths['/__admin/webhooks/deliveries'].get.responses['400'], 'its errors are still there');
  const detail = doc.paths['/__admin/requests/{id}'].get.responses['200'].content['application/json'].schema;
  t.ok(detail.properties.request && detail.properties.response, 'a request with its headers and bodies');
});

t.test("why a delivery waits: a scenario's receiver down", async (t) => {
  const rx = await startReceiver();
  t.teardown(() => rx.close());
  const app = await buildWebhookApp();
  t.teardown(() => app.close());
  await app.inject({ method: 'PUT', url: '/__admin/webhooks/config', payload: { application: 'acme', url: rx.url } });
  const order = await bookOrder(overInject(app, 'acme'));
  const res = await app.inject({ method: 'POST', url: '/__admin/scenarios/receiver-down/run', payload: { order_item_uuid: order.items[0]!.uuid } });
  t.equal(res.statusCode, 200, res.body);
  let waiting;
  for (let i = 0; i < 100 && waiting?.reason !== 'receiver_down'; i++) {
    await new Promise((r) => setTimeout(r, 50));
    waiting = (await deliveries(app))[0]?.waiting;
  }
  t.same(waiting, { reason: 'receiver_down', message: 'receiver down (scenario receiver-down): attempt 2 of 6, at 2026-01-15T10:00:10.000Z, fails without a request', next_attempt_at: '2026-01-15T10:00:10.000Z', after: null });
  t.equal(rx.received.length, 0);
});
