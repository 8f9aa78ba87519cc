import t, { type Test } from 'tap';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from '../helper.js';

const POLICIES = '0f641d85-2046-11e7-9cc9-06a7e332783f';
const CONFIRM = '0f5821c5-2046-11e7-9cc9-06a7e332783f';
const LEAD = { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', musement_newsletter: 'NO', allow_profiling: 'NO', thirdparty_newsletter: 'NO', events_related_newsletter: 'NO' };

async function setup(t: Test, webhookUrl: string | null = 'http://127.0.0.1:9/hook') {
  // By default a receiver nobody listens on: deliveries are recorded and stay pending.
  const app = await buildTestApp({ config: { webhookUrl } });
  t.teardown(() => app.close());
  const headers: Record<string, string> = { 'x-service-application': 'shop' };
  const call = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, status = 200) => {
    const res = await app.inject({ method, url: `/api/v3${url}`, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
    if (res.statusCode !== status) throw new Error(`${method} ${url}: expected ${status}, got ${res.statusCode} ${res.body}`);
    return res.body ? res.json() : undefined;
  };
  const login = async (client = 'sandbox-client', secret = 'sandbox-secret') => {
    const token = await call('POST', '/login', { client_id: client, client_secret: secret, grant_type: 'client_credentials' });
    headers.authorization = `Bearer ${token.access_token}`;
  };
  /** Books one adult on a day and time, paid; returns order and item uuids. */
  const book = async (activity: string, day: string, time: string, extra: object = {}) => {
    const [schedule] = await call('GET', `/activities/${activity}/dates/${day}`);
    const slot = schedule.groups[0].slots.find((s: { time: string }) => s.time === time);
    const cart = await call('POST', '/carts');
    await call('POST', `/carts/${cart.uuid}/items`, [{ product_identifier: slot.products[0].product_id, quantity: 2, ...extra }]);
    await call('PUT', `/carts/${cart.uuid}/customer`, LEAD);
    const order = await call('POST', '/orders', { cart_uuid: cart.uuid });
    await call('POST', '/payments/no/payment', { uuid: order.uuid });
    return { order: order.uuid as string, item: order.items[0].uuid as string };
  };
  await login();
  return { app, call, login, book, headers };
}

t.test('cancelling an OK item refunds by the policy tiers and sends two webhooks', async (t) => {
  const { app, call, book, headers } = await setup(t);
  headers['x-service-currency'] = 'EUR'; // orders placed in the supplier's currency: the tiers' amounts as they are
  const early = await book(POLICIES, '2026-01-20', '10:00');
  const policies = await call('GET', `/orders/${early.order}/items/${early.item}/refund-policies`);
  t.same(policies.map((p: { period: string; applicable_until: string }) => [p.period, p.applicable_until]), [['P3D', '2026-01-17 10:00'], ['P1D', '2026-01-19 10:00'], ['PT12H', '2026-01-19 22:00']]);
  t.equal(policies[0].remaining_time, 'P2D');
  await call('DELETE', `/orders/${early.order}/items/${early.item}`, { cancellation_reason: 'CANCELLED-BY-CUSTOMER', cancellation_additional_info: 'changed plans' }, 204);
  const order = await call('GET', `/orders/${early.order}`);
  t.match(order.items[0], { status: 'REFUNDED', version: 4, cancellation_reason: 'CANCELLED-BY-CUSTOMER', cancellation_additional_info: 'changed plans' });
  t.equal(order.version, 4);
  const refunds = await call('GET', `/orders/${early.order}/refunds`);
  t.match(refunds, [{ order_item_uuid: early.item, status: 'PAID', amount: { currency: 'EUR', value: 60 } }], '100% of 2 x 30 EUR');
  const sent = (app as FastifyInstance).webhooks.list({ order_item_uuid: early.item }).map((d) => d.payload.order_item_status);
  t.same(sent, ['OK', 'REFUND_STARTED', 'REFUNDED'], 'one webhook per move, in order');

  const dayBefore = await book(POLICIES, '2026-01-16', '10:00');
  await call('DELETE', `/orders/${dayBefore.order}/items/${dayBefore.item}`, { cancellation_reason: 'VENUE-CLOSED' }, 204);
  t.match(await call('GET', `/orders/${dayBefore.order}/refunds`), [{ amount: { value: 30 } }], 'exactly one day before: 50%');
  const late = await book(POLICIES, '2026-01-15', '15:00');
  await call('DELETE', `/orders/${late.order}/items/${late.item}`, { cancellation_reason: 'GRACE-PERIOD' }, 204);
  t.match(await call('GET', `/orders/${late.order}/refunds`), [{ amount: { value: 0 } }], 'five hours before: no tier applies');
});

t.test('a refund is in the currency the order was placed in, as a full Price', async (t) => {
  const { app, call, book, headers } = await setup(t);
  headers['x-service-currency'] = 'USD';
  const booked = await book(POLICIES, '2026-01-20', '10:00');
  const paid = await call('GET', `/orders/${booked.order}`);
  t.match(paid.items[0].total_retail_price_in_order_currency, { currency: 'USD', value: 65.22 }, '2 x 30 EUR shown in USD');
  await call('DELETE', `/orders/${booked.order}/items/${booked.item}`, { cancellation_reason: 'CANCELLED-BY-CUSTOMER' }, 204);
  // Asked in another currency: the refund stays in the order's currency, as the order's prices do.
  headers['x-service-currency'] = 'GBP';
  const [refund] = await call('GET', `/orders/${booked.order}/refunds`);
  t.same(refund.amount, { currency: 'USD', value: 65.22, formatted_value: '$65.22', formatted_iso_value: '$65.22' }, '100% of what was paid, in USD');
  t.same(Object.keys(refund.amount).sort(), Object.keys(paid.total_price).sort(), 'the same Price fields as the order total');
  t.same(refund.amount, paid.items[0].total_retail_price_in_order_currency, 'a full refund equals the paid line');

  // A refund an older version stored in the supplier currency still shows in the order's currency.
  await app.store.update('shop', (s) => {
    const o = s.orders[booked.order] as unknown as { refunds: object[] };
    o.refunds.push({ uuid: 'legacy', order_item_uuid: booked.item, amount: 30, currency: 'EUR', reason: 'VENUE-CLOSED', created_at: '2026-01-15T10:00:00.000Z' });
  });
  const legacy = (await call('GET', `/orders/${booked.order}/refunds`)).find((r: { uuid: string }) => r.uuid === 'legacy');
  t.same(legacy.amount, { currency: 'USD', value: 32.61, formatted_value: '$32.61', formatted_iso_value: '$32.61' }, 'EUR 30.00 stored, USD 32.61 shown');
});

t.test('cancellation refusals and the notifications endpoint', async (t) => {
  const { call, login, book } = await setup(t);
  const pending = await book(CONFIRM, '2026-01-20', '09:30', { language: 'en' });
  t.match(await call('DELETE', `/orders/${pending.order}/items/${pending.item}`, { cancellation_reason: 'CANCELLED-BY-CUSTOMER' }, 409), { message: /status PENDING/ });
  t.match(await call('DELETE', `/orders/${pending.order}/items/${pending.item}`, { cancellation_reason: 'BORED' }, 400), { message: /cancellation_reason/ });
  t.match(await call('DELETE', `/orders/${pending.order}/items/${pending.item}`, {}, 400), { message: /cancellation_reason/ });
  await call('DELETE', `/orders/${pending.order}/items/nope`, { cancellation_reason: 'API-ISSUE' }, 404);
  await call('DELETE', `/orders/nope/items/nope`, { cancellation_reason: 'API-ISSUE' }, 404);
  t.match(await call('GET', `/orders/${pending.order}/items/${pending.item}/refund-policies`, undefined, 404), { code: '1400' });
  t.same(await call('GET', `/orders/${pending.order}/refunds`), []);
  await call('POST', `/orders/${pending.order}/items/${pending.item}/notifications`, undefined, 204);
  await call('POST', `/orders/${pending.order}/items/nope/notifications`, undefined, 404);
  await login('limited-client', 'limited-secret');
  t.match(await call('DELETE', `/orders/${pending.order}/items/${pending.item}`, { cancellation_reason: 'API-ISSUE' }, 403), { message: /order-item-cancellation/ });
});

t.test('notifications need a webhook URL', async (t) => {
  const { call, book } = await setup(t, null);
  const booked = await book(POLICIES, '2026-01-20', '10:00');
  t.match(await call('POST', `/orders/${booked.order}/items/${booked.item}/notifications`, undefined, 400), { message: /No webhook URL/ });
});
