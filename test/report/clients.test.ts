// The integration report against partners' clients: each flawed one makes one mistake, and the
// report must name it with its specific finding (and nothing else at warning or error); the
// correct ones, each of a different style, must draw no warning or error at all.
import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { fixedClock, type Clock } from '../../src/clock.js';
import { encodeProductId } from '../../src/catalog/schedule.js';
import type { FindingId, Report } from '../../src/report/index.js';
import { bookOrder, overInject } from '../book-order.js';
import { buildTestApp } from '../helper.js';
import { CONFIRM, DAY, ECD, INSTANT, LEAD, PARTICIPANTS, PICKUP, PICKUP_ACTIVITY, REFUND, SANDBOX, partner } from './partner.js';

type Partner = ReturnType<typeof partner>;
interface Flawed {
  mistake: string;
  /** The finding that must name it. */
  named: FindingId;
  /** Other findings the same mistake brings with it (a retried refusal is also the refusal). */
  also?: FindingId[];
  /** Headers to send (undefined leaves one out). */
  headers?: Record<string, string | undefined>;
  play(p: Partner, ctx: { app: FastifyInstance; clock: Clock & { advance(ms: number): void } }): Promise<unknown>;
}

const UNKNOWN = '0b5a3c8e-1111-4222-8333-444455556666';
const productOn = (activity: string, day: string, time = '') => encodeProductId({ activityUuid: activity, featureCode: 'standard', holderCode: 'adult', day, time });

const FLAWED: Flawed[] = [
  { mistake: 'a misspelt filter', named: 'unknown-query-parameter', play: (p) => p.call('GET', '/cities?country_in=IT') },
  { mistake: 'a value outside an enum', named: 'value-outside-enum', play: (p) => p.call('GET', '/venues?status=BOGUS') },
  { mistake: 'email_notification misspelt: the default ALL applies', named: 'unknown-body-field', play: (p) => p.login().then(() => p.book({ order: { email_notifications: 'NONE' } })) },
  { mistake: 'customer data sent with POST /carts', named: 'unknown-body-field', play: (p) => p.call('POST', '/carts', { customer: LEAD }) },
  { mistake: 'login without the secret', named: 'missing-body-field', play: (p) => p.call('POST', '/login', { client_id: 'sandbox-client', grant_type: 'client_credentials' }) },
  { mistake: 'GET /login', named: 'deprecated-operation', play: (p) => p.call('GET', '/login?client_id=sandbox-client&client_secret=sandbox-secret&grant_type=client_credentials') },
  { mistake: 'the removed /events search', named: 'deprecated-operation', play: (p) => p.call('GET', '/events?limit=5') },
  { mistake: 'vertical_in instead of category_in', named: 'deprecated-field', play: (p) => p.call('GET', '/activities?vertical_in=museums&limit=5') },
  { mistake: 'the token in the query', named: 'token-in-query', also: ['authentication-required'], play: (p) => p.call('GET', `/activities/${INSTANT}/merchant-tags?access_token=abc`) },
  { mistake: 'no version header', named: 'no-version-header', headers: { 'x-service-version': undefined }, play: (p) => p.call('GET', '/currencies') },
  { mistake: 'a version the service does not have', named: 'unknown-version', headers: { 'x-service-version': '4.0.0' }, play: (p) => p.call('GET', '/currencies') },
  { mistake: 'an order created and left unpaid', named: 'order-not-paid', play: (p) => p.login().then(() => p.book({ pay: false })) },
  { mistake: 'an unsupported language', named: 'unsupported-locale', headers: { 'accept-language': 'xx-XX' }, play: (p) => p.call('GET', '/currencies') },
  { mistake: 'the order identifier in the path', named: 'code-for-uuid', play: async (p) => (await p.login(), p.call('GET', `/orders/${(await p.book()).identifier}`)) },
  {
    mistake: 'a cancellation without reading refund policies',
    named: 'cancel-without-refund-policies',
    play: async (p) => {
      await p.login();
      const order = await p.book({ activity: REFUND });
      return p.ok('DELETE', `/orders/${order.uuid}/items/${order.items[0].uuid}`, { cancellation_reason: 'CANCELLED-BY-CUSTOMER' });
    },
  },
  { mistake: 'customer info without its schema', named: 'customer-without-schema', play: (p) => p.login().then(() => p.book({ readCustomerSchema: false })) },
  { mistake: 'participants without their schema', named: 'participants-without-schema', play: (p) => p.login().then(() => p.book({ activity: PARTICIPANTS, readParticipantsSchema: false })) },
  { mistake: 'a language the activity does not offer', named: 'language-not-offered', play: (p) => p.login().then(() => p.book({ activity: CONFIRM, item: { language: 'de' } })).catch(() => undefined) },
  { mistake: 'a language for an activity without languages', named: 'language-ignored', play: (p) => p.login().then(() => p.book({ item: { language: 'en' } })) },
  { mistake: 'a pickup for an activity without pickups', named: 'pickup-ignored', play: (p) => p.login().then(() => p.book({ item: { pickup: PICKUP } })) },
  { mistake: 'source inside extra_data on 3.5.0', named: 'source-in-extra-data', play: (p) => p.login().then(() => p.book({ order: { extra_data: '{"source":"kiosk"}' } })) },
  { mistake: 'a login per call', named: 'token-not-reused', play: async (p) => { for (let i = 0; i < 4; i++) await p.login(); } },
  {
    mistake: 'polling an order every 0.9 s',
    named: 'order-polling',
    play: async (p, { clock }) => {
      await p.login();
      const order = await p.book();
      for (let i = 0; i < 14; i++) {
        await p.call('GET', `/orders/${order.uuid}`);
        clock.advance(900);
      }
    },
  },
  { mistake: 'retrying a 404 unchanged', named: 'retry-without-change', also: ['not-found'], play: async (p) => { for (let i = 0; i < 3; i++) await p.call('GET', `/carts/${UNKNOWN}`); } },
  { mistake: 'never reading an order whose item was PENDING at payment', named: 'paid-order-not-read', play: (p) => p.login().then(() => p.book({ activity: CONFIRM, readOrder: false })) },
  { mistake: 'no application header, with a valid token', named: 'missing-application-header', play: async (p) => (await p.login(), p.call('GET', '/currencies', undefined, { 'x-service-application': '' })) },
  { mistake: 'an unknown market', named: 'invalid-market', headers: { 'x-service-market': 'zz' }, play: (p) => p.call('GET', '/currencies') },
  { mistake: 'an unsupported currency', named: 'invalid-currency', headers: { 'x-service-currency': 'XYZ' }, play: (p) => p.call('GET', '/currencies') },
  { mistake: 'a malformed version', named: 'invalid-version', headers: { 'x-service-version': 'v3' }, play: (p) => p.call('GET', '/currencies') },
  { mistake: 'a wrong client secret', named: 'invalid-credentials', play: (p) => p.call('POST', '/login', { ...SANDBOX, client_secret: 'nope' }) },
  { mistake: 'no token where one is needed', named: 'authentication-required', play: (p) => p.call('GET', `/activities/${INSTANT}/merchant-tags`) },
  { mistake: 'a made-up token', named: 'invalid-token', play: (p) => p.call('GET', '/currencies', undefined, { authorization: 'Bearer not-a-token' }) },
  { mistake: "another application's token", named: 'token-of-other-application', play: async (p, { app }) => p.call('GET', '/currencies', undefined, { authorization: `Bearer ${await partner(app, 'someone-else').login()}` }) },
  { mistake: 'an expired token', named: 'expired-token', play: async (p, { clock }) => (await p.login(), clock.advance(2 * 3600_000), p.call('GET', '/currencies')) },
  {
    mistake: 'a cancellation with a token lacking the scope',
    named: 'missing-scope',
    play: async (p) => {
      await p.login();
      const order = await p.book({ activity: REFUND });
      await p.ok('GET', `/orders/${order.uuid}/items/${order.items[0].uuid}/refund-policies`);
      await p.login({ client_id: 'limited-client', client_secret: 'limited-secret', grant_type: 'client_credentials' });
      return p.call('DELETE', `/orders/${order.uuid}/items/${order.items[0].uuid}`, { cancellation_reason: 'CANCELLED-BY-CUSTOMER' });
    },
  },
  {
    mistake: 'no-payment without the permission',
    named: 'payment-not-allowed',
    also: ['order-not-paid'],
    play: async (p) => {
      await p.login({ client_id: 'cancel-only-client', client_secret: 'cancel-only-secret', grant_type: 'client_credentials' });
      const order = await p.book({ pay: false });
      return p.call('POST', '/payments/no/payment', { uuid: order.uuid });
    },
  },
  { mistake: 'a DRAFT activity', named: 'activity-not-accessible', play: (p) => p.call('GET', '/activities/a0000000-0000-4000-8000-000000000010') },
  { mistake: 'a path typo', named: 'unknown-route', play: (p) => p.call('GET', '/activity') },
  { mistake: 'cancelling a whole order', named: 'whole-order-cancellation', play: async (p) => (await p.login(), p.call('DELETE', `/orders/${(await p.book()).uuid}`)) },
  { mistake: 'an unknown cart', named: 'not-found', play: (p) => p.call('GET', `/carts/${UNKNOWN}`) },
  {
    mistake: 'a cart created under a second application name',
    named: 'id-of-other-application',
    play: async (p, { app }) => p.call('POST', `/carts/${(await partner(app, 'second-name').ok('POST', '/carts')).uuid}/items`, [{ product_identifier: await p.product(INSTANT), quantity: 1 }]),
  },
  { mistake: 'a limit over 100', named: 'invalid-value', play: (p) => p.call('GET', '/cities?limit=1000') },
  { mistake: 'a body that is not JSON', named: 'invalid-json-body', play: (p) => p.call('POST', '/login', '{"client_id":', { 'content-type': 'application/json' }) },
  { mistake: 'a form-encoded body', named: 'unsupported-media-type', play: (p) => p.call('POST', '/login', 'client_id=sandbox-client', { 'content-type': 'application/x-www-form-urlencoded' }) },
  { mistake: 'dates backwards', named: 'date-range-invalid', play: (p) => p.call('GET', `/activities/${INSTANT}/dates?date_from=2026-01-20&date_to=2026-01-18`) },
  { mistake: 'a day in the past', named: 'no-schedule', play: (p) => p.call('GET', `/activities/${INSTANT}/dates/2026-01-14`) },
  { mistake: 'an unavailable day', named: 'date-unavailable', play: (p) => p.call('GET', '/activities/a0000000-0000-4000-8000-000000000003/dates/2026-02-13') },
  { mistake: 'a pickup activity without its pickup', named: 'pickup-required', play: (p) => p.call('GET', `/activities/${PICKUP_ACTIVITY}/dates/${DAY}`) },
  { mistake: "another activity's pickup", named: 'pickup-unknown', play: (p) => p.call('GET', `/activities/${PICKUP_ACTIVITY}/dates?pickup=${UNKNOWN}`) },
  { mistake: 'a made-up product id', named: 'product-unknown', play: async (p) => p.call('POST', `/carts/${(await p.ok('POST', '/carts')).uuid}/items`, [{ product_identifier: 'not-a-product-of-the-catalog', quantity: 1 }]) },
  { mistake: 'eleven tickets (max_buy 10)', named: 'quantity-outside-limits', play: async (p) => p.call('POST', `/carts/${(await p.ok('POST', '/carts')).uuid}/items`, [{ product_identifier: await p.product(INSTANT), quantity: 11 }]) },
  {
    mistake: 'a sold-out slot added without checking availability',
    named: 'not-enough-availability',
    play: async (p) => p.call('POST', `/carts/${(await p.ok('POST', '/carts')).uuid}/items`, [{ product_identifier: await p.product('a0000000-0000-4000-8000-000000000002'), quantity: 1 }]),
  },
  {
    mistake: 'a cached product id of a day gone by',
    named: 'past-cutoff',
    play: async (p) => {
      const time = (await p.ok('GET', `/activities/${INSTANT}/dates/${DAY}`))[0].groups[0].slots[0].time ?? '';
      return p.call('POST', `/carts/${(await p.ok('POST', '/carts')).uuid}/items`, [{ product_identifier: productOn(INSTANT, '2026-01-14', time), quantity: 1 }]);
    },
  },
  { mistake: 'adding to a cart after ordering', named: 'cart-locked', play: async (p) => (await p.login(), p.call('POST', `/carts/${(await p.book()).cart}/items`, [{ product_identifier: await p.product(INSTANT), quantity: 1 }])) },
  {
    mistake: 'ordering without the customer',
    named: 'order-without-customer',
    play: async (p) => {
      const cart = (await p.ok('POST', '/carts')).uuid;
      await p.ok('POST', `/carts/${cart}/items`, [{ product_identifier: await p.product(INSTANT), quantity: 1 }]);
      return p.call('POST', '/orders', { cart_uuid: cart });
    },
  },
  {
    mistake: 'ordering before the participants',
    named: 'order-without-participants',
    play: async (p) => {
      const cart = (await p.ok('POST', '/carts')).uuid;
      const item = await p.ok('POST', `/carts/${cart}/items`, [{ product_identifier: await p.product(PARTICIPANTS), quantity: 1 }]);
      await p.ok('GET', `/carts/${cart}/customer/schema`);
      await p.ok('PUT', `/carts/${cart}/customer`, LEAD);
      await p.ok('GET', `/carts/${cart}/items/${item.uuid}/participants/schema`);
      return p.call('POST', '/orders', { cart_uuid: cart });
    },
  },
  {
    mistake: 'the customer set before an item that needs extra data',
    named: 'order-without-extra-customer-data',
    play: async (p) => {
      const cart = (await p.ok('POST', '/carts')).uuid;
      await p.ok('GET', `/carts/${cart}/customer/schema`);
      await p.ok('PUT', `/carts/${cart}/customer`, LEAD);
      await p.ok('POST', `/carts/${cart}/items`, [{ product_identifier: await p.product(ECD), quantity: 1 }]);
      return p.call('POST', '/orders', { cart_uuid: cart });
    },
  },
  {
    mistake: 'ordering an empty cart',
    named: 'order-from-empty-cart',
    play: async (p) => {
      const cart = (await p.ok('POST', '/carts')).uuid;
      await p.ok('GET', `/carts/${cart}/customer/schema`);
      await p.ok('PUT', `/carts/${cart}/customer`, LEAD);
      return p.call('POST', '/orders', { cart_uuid: cart });
    },
  },
  {
    mistake: 'a customer without the newsletter flags',
    named: 'customer-invalid',
    play: async (p) => {
      const cart = (await p.ok('POST', '/carts')).uuid;
      await p.ok('GET', `/carts/${cart}/customer/schema`);
      return p.call('PUT', `/carts/${cart}/customer`, { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com' });
    },
  },
  {
    mistake: 'one participant for two tickets',
    named: 'participants-invalid',
    play: async (p) => {
      const cart = (await p.ok('POST', '/carts')).uuid;
      const item = await p.ok('POST', `/carts/${cart}/items`, [{ product_identifier: await p.product(PARTICIPANTS), quantity: 2 }]);
      await p.ok('GET', `/carts/${cart}/items/${item.uuid}/participants/schema`);
      return p.call('PUT', `/carts/${cart}/items/${item.uuid}/participants`, [{ firstname: 'Ada', lastname: 'Lovelace', date_of_birth: '1990-01-01' }]);
    },
  },
  {
    mistake: 'participants for an item that needs none',
    named: 'participants-not-required',
    play: async (p) => {
      const cart = (await p.ok('POST', '/carts')).uuid;
      const item = await p.ok('POST', `/carts/${cart}/items`, [{ product_identifier: await p.product(INSTANT), quantity: 1 }]);
      await p.call('GET', `/carts/${cart}/items/${item.uuid}/participants/schema`);
      return p.call('PUT', `/carts/${cart}/items/${item.uuid}/participants`, [{ firstname: 'Ada', lastname: 'Lovelace' }]);
    },
  },
  { mistake: 'paying twice', named: 'already-paid', play: async (p) => (await p.login(), p.call('POST', '/payments/no/payment', { uuid: (await p.book()).uuid })) },
  {
    mistake: 'cancelling an item still PENDING',
    named: 'not-cancellable',
    play: async (p) => {
      await p.login();
      const order = await p.book({ activity: CONFIRM });
      await p.call('GET', `/orders/${order.uuid}/items/${order.items[0].uuid}/refund-policies`);
      return p.call('DELETE', `/orders/${order.uuid}/items/${order.items[0].uuid}`, { cancellation_reason: 'CANCELLED-BY-CUSTOMER' });
    },
  },
  { mistake: 'a voucher before confirmation', named: 'voucher-not-ready', play: async (p) => (await p.login(), p.call('GET', `/orders/${(await p.book({ activity: CONFIRM })).uuid}/activities/${CONFIRM}/voucher`)) },
  {
    mistake: 'asking for a webhook again with none configured',
    named: 'webhook-not-configured',
    play: async (p) => {
      await p.login();
      const order = await p.book();
      return p.call('POST', `/orders/${order.uuid}/items/${order.items[0].uuid}/notifications`);
    },
  },
];

const noticed = (r: Report) => r.findings.filter((f) => f.severity !== 'info');

t.test(`${FLAWED.length} flawed clients, one mistake each: each named by its finding`, async (t) => {
  t.ok(FLAWED.length >= 30);
  const clock = fixedClock();
  const app = await buildTestApp({ clock });
  t.teardown(() => app.close());
  const named = new Set<FindingId>();
  for (const [i, c] of FLAWED.entries()) {
    const application = `flawed-${i}`;
    await c.play(partner(app, application, c.headers ?? {}), { app, clock });
    const report = app.integrationReport!.get(application);
    const ids = [...new Set(noticed(report).map((f) => f.id))].sort();
    t.same(ids, [c.named, ...(c.also ?? [])].sort(), `${c.mistake}: ${noticed(report).map((f) => `${f.id} (${f.message})`).join('; ')}`);
    named.add(c.named);
  }
  t.ok(named.size >= 30, `${named.size} distinct findings`);
});

t.test('three correct clients of different styles: no warning, no error', async (t) => {
  const clock = fixedClock();
  const app = await buildTestApp({ clock });
  t.teardown(() => app.close());

  // 1. Careful and thorough: searches a city's listing, books every kind of activity (languages,
  // pickups, extra customer data, participants), reads every schema, the order after payment, the
  // refund policies before a cancellation, and the refunds.
  const careful = partner(app, 'careful');
  await careful.login();
  await careful.ok('GET', '/cities/1/activities?limit=5');
  await careful.ok('GET', `/activities/${CONFIRM}/dates?date_from=${DAY}&date_to=2026-01-25`);
  for (const activity of [INSTANT, CONFIRM, ECD, PARTICIPANTS, PICKUP_ACTIVITY]) await careful.book({ activity, quantity: 2 });
  const order = await careful.book({ activity: REFUND });
  const item = order.items[0].uuid;
  await careful.ok('GET', `/orders/${order.uuid}/items/${item}/refund-policies`);
  await careful.ok('DELETE', `/orders/${order.uuid}/items/${item}`, { cancellation_reason: 'CANCELLED-BY-CUSTOMER' });
  await careful.ok('GET', `/orders/${order.uuid}/refunds`);
  await careful.call('GET', `/activities/${INSTANT}/extra-customer-data/schema`);
  const r1 = app.integrationReport!.get('careful');
  t.same(noticed(r1), [], 'careful');
  t.equal(r1.coverage.steps.filter((s) => !s.done).map((s) => s.name).join(), 'voucher PDF,webhook answered 200', 'a listing of a city counts as search');

  // 2. The suite's own booking helper (test/book-order.ts): login first, one item, the order read after paying.
  await bookOrder(overInject(app, 'helper'));
  t.same(noticed(app.integrationReport!.get('helper')), [], 'test/book-order.ts');

  // 3. Lean: no login for the catalog, a single object for the item, the quantity as a string, the
  // token only for the payment, the version pinned to the stable 3.4.0, in euros.
  const lean = partner(app, 'lean', { 'x-service-version': '3.4.0', 'x-service-currency': 'EUR', 'accept-language': 'it' });
  const cart = (await lean.ok('POST', '/carts')).uuid;
  await lean.ok('POST', `/carts/${cart}/items`, { product_identifier: await lean.product(INSTANT), quantity: '2' });
  await lean.ok('GET', `/carts/${cart}/customer/schema`);
  await lean.ok('PUT', `/carts/${cart}/customer`, LEAD);
  const leanOrder = await lean.ok('POST', '/orders', { cart_uuid: cart, email_notification: 'TO-CUSTOMER', extra_data: '{"source":"kiosk"}', source: 'kiosk' });
  await lean.login();
  const paid = await lean.ok('POST', '/payments/no/payment', { uuid: leanOrder.uuid });
  t.equal(paid.items[0].status, 'OK');
  t.same(noticed(app.integrationReport!.get('lean')), [], 'lean');
});
