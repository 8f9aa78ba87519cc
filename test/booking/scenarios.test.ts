import t, { type Test } from 'tap';
import { fixedClock } from '../../src/clock.js';
import { buildTestApp } from '../helper.js';

const INSTANT = '4e451a8a-2ee5-493f-aa12-a39f13d7253e';
const lead = (email: string) => ({ firstname: 'Ada', lastname: 'Lovelace', email, musement_newsletter: 'NO', allow_profiling: 'NO', thirdparty_newsletter: 'NO', events_related_newsletter: 'NO' });

async function setup(t: Test) {
  const clock = fixedClock('2026-01-15T10:00:00Z');
  const app = await buildTestApp({ clock, config: { webhookUrl: 'http://127.0.0.1:9/hook' } });
  t.teardown(() => app.close());
  const headers: Record<string, string> = { 'x-service-application': 'shop' };
  const call = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, status = 200) => {
    const res = await app.inject({ method, url: url.startsWith('/__admin') ? url : `/api/v3${url}`, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
    if (res.statusCode !== status) throw new Error(`${method} ${url}: expected ${status}, got ${res.statusCode} ${res.body}`);
    return res.body ? res.json() : undefined;
  };
  const token = await call('POST', '/login', { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' });
  headers.authorization = `Bearer ${token.access_token}`;
  const book = async (email: string, beforePayment = () => {}) => {
    const [s] = await call('GET', `/activities/${INSTANT}/dates/2026-01-20`);
    const cart = await call('POST', '/carts');
    await call('POST', `/carts/${cart.uuid}/items`, [{ product_identifier: s.groups[0].slots[0].products[0].product_id, quantity: 1 }]);
    await call('PUT', `/carts/${cart.uuid}/customer`, lead(email));
    const order = await call('POST', '/orders', { cart_uuid: cart.uuid });
    beforePayment();
    const paid = await call('POST', '/payments/no/payment', { uuid: order.uuid });
    return { order: order.uuid as string, item: paid.items[0].uuid as string, status: paid.items[0].status as string };
  };
  const status = async (order: string) => (await call('GET', `/orders/${order}`)).items[0].status as string;
  const advance = (d: string) => call('POST', '/__admin/clock', { advance: d });
  const webhooks = (item: string) => app.webhooks.list({ order_item_uuid: item }).map((d) => d.payload.order_item_status);
  // The application's store writes (writes.n), counted from the last time it was set to 0.
  const writes = { n: 0 };
  const update = app.store.update.bind(app.store);
  app.store.update = ((application: string, fn: never) => (application === 'shop' && writes.n++, update(application, fn))) as typeof app.store.update;
  return { app, call, book, status, advance, webhooks, writes };
}

t.test('scenarios attached by lead booker email replace the default lifecycle', async (t) => {
  const { book, status, advance, webhooks } = await setup(t);
  const ko = await book('KO@example.com');
  t.equal(ko.status, 'KO', 'refusal at once, even for an instant-confirmation activity');
  t.same(webhooks(ko.item), ['KO']);
  const delayed = await book('delayed@example.com');
  t.equal(delayed.status, 'PENDING');
  await advance('PT1M');
  t.equal(await status(delayed.order), 'PENDING');
  await advance('PT1M');
  t.equal(await status(delayed.order), 'OK', 'confirmed two minutes after payment, on the server clock');
  t.same(webhooks(delayed.item), ['OK']);
  const plain = await book('someone@example.com');
  t.equal(plain.status, 'OK', 'no scenario: the default');
});

t.test("a scenario's steps due at once are in the write of the payment or cancellation that starts it", async (t) => {
  const { call, book, status, webhooks, writes } = await setup(t);
  const ko = await book('KO@example.com', () => (writes.n = 0));
  t.equal(ko.status, 'KO', "a scenario's first step is in the payment's answer");
  t.same(webhooks(ko.item), ['KO'], 'and its webhook recorded');
  t.equal(writes.n, 1, 'the payment and the first step in one write');
  const b = await book('cancel-error@example.com');
  writes.n = 0;
  await call('DELETE', `/orders/${b.order}/items/${b.item}`, { cancellation_reason: 'CANCELLED-BY-CUSTOMER' }, 204);
  t.equal(await status(b.order), 'REFUND_STARTED', "and in a cancellation's");
  t.same(webhooks(b.item), ['OK', 'REFUND_STARTED']);
  t.equal(writes.n, 1, 'the cancellation and its first step in one write');
});

t.test('a scenario attached to cancellation: OK → REFUND_STARTED → CANCELLATION_ERROR → REFUNDED', async (t) => {
  const { call, book, status, advance, webhooks } = await setup(t);
  const b = await book('cancel-error@example.com');
  await call('DELETE', `/orders/${b.order}/items/${b.item}`, { cancellation_reason: 'CANCELLED-BY-CUSTOMER' }, 204);
  t.equal(await status(b.order), 'REFUND_STARTED');
  await advance('PT1M');
  t.equal(await status(b.order), 'CANCELLATION_ERROR');
  await advance('PT10M');
  t.equal(await status(b.order), 'REFUNDED');
  t.same(webhooks(b.item), ['OK', 'REFUND_STARTED', 'CANCELLATION_ERROR', 'REFUNDED'], 'one webhook per move, in version order');
});

t.test('running a scenario on demand, and its refusals', async (t) => {
  const { call, book, status, advance, webhooks, writes } = await setup(t);
  const b = await book('someone@example.com');
  t.match(await call('POST', '/__admin/scenarios/refusal/run', { order_item_uuid: b.item }, 409), { message: /starts from PENDING.*is OK/ });
  writes.n = 0;
  const run = await call('POST', '/__admin/scenarios/cancellation-error-kept/run', { order_uuid: b.order });
  t.match(run.runs, [{ scenario: 'cancellation-error-kept', order_item_uuid: b.item, application: 'shop' }]);
  t.equal(await status(b.order), 'REFUND_STARTED');
  t.equal(writes.n, 1, 'the start and its first step in one write');
  await advance('PT6M');
  t.equal(await status(b.order), 'OK', 'both later steps fell due in one clock move, applied in order');
  t.same(webhooks(b.item), ['OK', 'REFUND_STARTED', 'CANCELLATION_ERROR', 'OK']);
  await call('POST', '/__admin/scenarios/nope/run', { order_item_uuid: b.item }, 404);
  await call('POST', '/__admin/scenarios/refusal/run', { order_item_uuid: 'nope' }, 404);
  await call('POST', '/__admin/scenarios/refusal/run', {}, 400);
});

t.test('a start on an item whose run is going is a 409 naming that run, which goes on', async (t) => {
  const { app, call, book, status, advance } = await setup(t);
  const b = await book('delayed@example.com');
  const refused = await call('POST', '/__admin/scenarios/refusal/run', { order_item_uuid: b.item }, 409);
  t.match(refused, { code: '0', message: /delayed-confirmation running/, run: { order_item_uuid: b.item, name: 'delayed-confirmation', steps_done: 0, steps: 1, next_step_at: '2026-01-15T10:02:00.000Z' } });
  t.equal(await status(b.order), 'PENDING', 'the refusal did not run');
  await advance('PT5M');
  t.equal(await status(b.order), 'OK', 'the delayed confirmation ran');
  t.match(app.store.tenant('shop').scenario_runs[b.item], { scenario: { name: 'delayed-confirmation' }, applied: 1 });
});
