import t from 'tap';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { fixedClock } from '../../src/clock.js';
import { defaults } from '../../src/config.js';
import { createStore } from '../../src/store/index.js';
import { buildTestApp, testCatalog } from '../helper.js';
import { tempDir } from '../tmp.js';

const INSTANT = '4e451a8a-2ee5-493f-aa12-a39f13d7253e';
const CONFIRM = '0f5821c5-2046-11e7-9cc9-06a7e332783f';
const ECD = '1714c6a7-2046-11e7-9cc9-06a7e332783f';
const PARTICIPANTS = '0420c908-981e-4e27-a40f-767e8b66574a';
const PICKUP = 'df542cb8-8fca-44d0-94e6-715399c783f0';
const DAY = '2026-01-20';
const LEAD = { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', musement_newsletter: 'NO', allow_profiling: 'NO', thirdparty_newsletter: 'NO', events_related_newsletter: 'NO' };

/** A small client for one application, as a partner's integration would call the API. */
function client(app: FastifyInstance, application = 'shop') {
  const headers: Record<string, string> = { 'x-service-application': application };
  const call = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, status = 200) => {
    const res = await app.inject({ method, url: `/api/v3${url}`, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
    if (res.statusCode !== status) throw new Error(`${method} ${url}: expected ${status}, got ${res.statusCode} ${res.body}`);
    return res.body ? res.json() : undefined;
  };
  return {
    call,
    async login() {
      const token = await call('POST', '/login', { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' });
      headers.authorization = `Bearer ${token.access_token}`;
    },
    async product(activity: string, query = '', holder = 'adult') {
      const [schedule] = await call('GET', `/activities/${activity}/dates/${DAY}${query}`);
      return schedule.groups[0].slots[0].products.find((p: { holder_code: string }) => p.holder_code === holder).product_id as string;
    },
  };
}

t.test('instant confirmation: cart, item, customer, order, payment, OK', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const c = client(app);
  const cart = await c.call('POST', '/carts');
  t.match(cart, { uuid: String, items: [], retail_price: { value: 0 } });
  const item = await c.call('POST', `/carts/${cart.uuid}/items`, [{ type: 'musement', product_identifier: await c.product(INSTANT), quantity: 2 }]);
  t.match(item, { status: 'PREBOOK_OK', quantity: 2, product: { activity_uuid: INSTANT, date: `${DAY} 10:00`, price_tag: { ticket_holder_code: 'adult' } }, total_price: { value: 84.78, currency: 'USD' } });
  const full = await c.call('GET', `/carts/${cart.uuid}`);
  t.match(full, { retail_price: { value: 84.78 }, service_fee: { value: 8.48 }, retail_price_without_service_fee: { value: 76.3 } });
  await c.call('GET', `/carts/${cart.uuid}/order-info`, undefined, 404);
  t.same((await c.call('PUT', `/carts/${cart.uuid}/customer`, LEAD)).firstname, 'Ada');
  const order = await c.call('POST', '/orders', { cart_uuid: cart.uuid, email_notification: 'NONE' });
  t.match(order, { identifier: /^MUS\d{7}$/, status: 'PENDING', customer: { email: 'ada@example.com' }, items: [{ status: 'PENDING', version: 1, quantity: 2 }], total_price: { value: 84.78 } });
  t.match(await c.call('GET', `/carts/${cart.uuid}/order-info`), { order_uuid: order.uuid, payment: { paid: false } });
  await c.call('POST', `/carts/${cart.uuid}/items`, [{ product_identifier: await c.product(INSTANT), quantity: 1 }], 423);
  await c.call('PUT', `/carts/${cart.uuid}/customer`, LEAD, 423);
  await c.call('POST', '/payments/no/payment', { uuid: order.uuid }, 422);
  await c.login();
  const paid = await c.call('POST', '/payments/no/payment', { uuid: order.uuid });
  t.match(paid, { status: 'OK', version: 2, items: [{ status: 'OK', version: 2 }] });
  await c.call('POST', '/payments/no/payment', { uuid: order.uuid }, 423);
  t.match(await c.call('GET', `/orders/${order.uuid}`), { items: [{ status: 'OK' }] });
  await c.call('GET', '/orders/00000000-0000-4000-8000-000000000000', undefined, 404);
});

t.test('needs confirmation, extra customer data, participants, pickup, several items', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const c = client(app);
  await c.login();
  const cart = await c.call('POST', '/carts');
  const add = (body: unknown, status = 200) => c.call('POST', `/carts/${cart.uuid}/items`, body, status);
  const confirm = await c.product(CONFIRM);
  t.match(await add([{ product_identifier: confirm, quantity: 1 }], 400), { message: /"language" is required: one of en, fr/ });
  t.match(await add([{ product_identifier: confirm, quantity: 1, language: 'de' }], 400), { message: /"language" must be one of/ });
  await add({ product_identifier: confirm, quantity: '1', language: 'fr' });
  await add([{ product_identifier: await c.product(ECD), quantity: 1 }]);
  const withParticipants = await add([{ product_identifier: await c.product(PARTICIPANTS), quantity: 2 }]);
  const pickupProduct = await c.product(PICKUP, '?pickup=c0000000-0000-4000-8000-000000000001');
  t.match(await add([{ product_identifier: pickupProduct, quantity: 1, language: 'en' }], 400), { message: /"pickup" is required/ });
  t.match(await add([{ product_identifier: pickupProduct, quantity: 1, language: 'en', pickup: 'nope' }], 400), { message: /not a pickup/ });
  await add([{ product_identifier: pickupProduct, quantity: 1, language: 'en', pickup: 'c0000000-0000-4000-8000-000000000002' }]);
  const full = await c.call('GET', `/carts/${cart.uuid}`);
  t.equal(full.items.length, 4);
  const sum = full.items.reduce((n: number, i: { total_price: { value: number } }) => n + i.total_price.value, 0);
  t.equal(Math.round(sum * 100) / 100, full.retail_price.value, 'totals add up');

  const schema = await c.call('GET', `/carts/${cart.uuid}/customer/schema`);
  t.equal(schema.title, 'cart_customer_guest');
  t.ok(schema.required.includes('extra_customer_data'));
  t.same(schema.properties.extra_customer_data.required, [ECD]);
  t.match(await c.call('PUT', `/carts/${cart.uuid}/customer`, { ...LEAD, email: 'not-an-email' }, 400), { message: /email.*format|format.*email/ });
  t.match(await c.call('PUT', `/carts/${cart.uuid}/customer`, LEAD, 400), { message: /extra_customer_data/ });
  t.match(await c.call('PUT', `/carts/${cart.uuid}/customer`, { ...LEAD, extra_customer_data: { [ECD]: {} } }, 400), { message: /phone_number/ });
  await c.call('PUT', `/carts/${cart.uuid}/customer`, { ...LEAD, extra_customer_data: { [ECD]: { phone_number: '+39 333 1234567' } } });

  t.match(await c.call('POST', '/orders', { cart_uuid: cart.uuid }, 400), { message: /participant info for cart items/ });
  const pschema = await c.call('GET', `/carts/${cart.uuid}/items/${withParticipants.uuid}/participants/schema`);
  t.match(pschema, { title: 'cart_item_participants_info', properties: { participants: { minItems: 2, maxItems: 2 } } });
  const other = full.items.find((i: { product: { activity_uuid: string } }) => i.product.activity_uuid === CONFIRM);
  t.match(await c.call('GET', `/carts/${cart.uuid}/items/${other.uuid}/participants/schema`, undefined, 404), { code: '1400', message: 'This cart item does not require participant info' });
  const person = { firstname: 'Ada', lastname: 'Lovelace', date_of_birth: '1815-12-10' };
  t.match(await c.call('PUT', `/carts/${cart.uuid}/items/${withParticipants.uuid}/participants`, [person], 400), { message: /participants/ });
  t.match(await c.call('PUT', `/carts/${cart.uuid}/items/${withParticipants.uuid}/participants`, [person, { ...person, date_of_birth: 'yesterday' }], 400), { message: /date_of_birth/ });
  await c.call('PUT', `/carts/${cart.uuid}/items/${withParticipants.uuid}/participants`, [person, { ...person, firstname: 'Byron' }]);
  t.equal((await c.call('GET', `/carts/${cart.uuid}/items/${withParticipants.uuid}/participants`)).length, 2);

  const order = await c.call('POST', '/orders', { cart_uuid: cart.uuid, source: 'partner-app' });
  t.equal(order.items.length, 4);
  t.equal(order.source, 'partner-app');
  t.same(order.items.find((i: { product: { activity_uuid: string } }) => i.product.activity_uuid === ECD).extra_customer_data, [{ name: 'phone_number', value: '+39 333 1234567' }]);
  const paid = await c.call('POST', '/payments/no/payment', { uuid: order.uuid });
  const status = Object.fromEntries(paid.items.map((i: { product: { activity_uuid: string }; status: string }) => [i.product.activity_uuid, i.status]));
  t.same(status, { [CONFIRM]: 'PENDING', [ECD]: 'OK', [PARTICIPANTS]: 'OK', [PICKUP]: 'OK' }, 'only the confirmation-needing item waits');
  t.equal(paid.version, 4, 'three moves, three versions');
});

t.test('refusals: products, quantities, dates, empty carts, locked carts, version rule for source', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const c = client(app);
  const cart = await c.call('POST', '/carts');
  const add = (body: unknown, status = 400) => c.call('POST', `/carts/${cart.uuid}/items`, body, status);
  const p = await c.product(INSTANT);
  t.match(await add([{ product_identifier: 'garbage', quantity: 1 }]), { message: /not a product of this catalog/ });
  t.match(await add([{ product_identifier: p, quantity: 0 }]), { code: '0' });
  t.match(await add([{ product_identifier: p, quantity: 11 }]), { message: /max_buy 10/ });
  t.match(await add(Array.from({ length: 6 }, () => ({ product_identifier: p, quantity: 10 }))), { message: /items\[5\]: only 0 tickets left/ }, 'availability 50 counts the whole request');
  t.match(await add([{ product_identifier: p, quantity: 1, type: 'other' }]), { message: /"type" must be one of/ });
  t.match(await add([{ quantity: 1 }]), { message: /product_identifier/ });
  t.equal((await c.call('GET', `/carts/${cart.uuid}`)).items.length, 0, 'a refused request added nothing');
  const [closed] = await c.call('GET', '/activities/a0000000-0000-4000-8000-000000000003/dates/2026-01-20');
  const closedProduct = closed.groups[0].slots[0].products[0].product_id as string;
  const unavailable = Buffer.from(Buffer.from(closedProduct, 'base64url').toString().replace('2026-01-20', '2026-02-13')).toString('base64url');
  t.match(await add([{ product_identifier: unavailable, quantity: 1 }], 422), { code: '2201' });
  const past = Buffer.from(Buffer.from(p, 'base64url').toString().replace(DAY, '2026-01-10')).toString('base64url');
  t.match(await add([{ product_identifier: past, quantity: 1 }]), { message: /cannot be booked/ });
  t.match(await c.call('POST', '/orders', { cart_uuid: cart.uuid }, 400), { message: /the cart is empty.*customer/ });
  await c.call('POST', '/orders', {}, 400);
  await c.call('POST', '/orders', { cart_uuid: 'nope' }, 404);
  await c.call('GET', '/carts/nope', undefined, 404);
  const item = await add([{ product_identifier: p, quantity: 1 }], 200);
  await c.call('DELETE', `/carts/${cart.uuid}/items/${item.uuid}`, undefined, 204);
  await c.call('DELETE', `/carts/${cart.uuid}/items/${item.uuid}`, undefined, 404);
  await add([{ product_identifier: p, quantity: 1 }], 200);
  await c.call('PUT', `/carts/${cart.uuid}/customer`, LEAD);
  const headers = { 'x-service-application': 'shop', 'x-service-version': '3.4.0' };
  const old = await app.inject({ method: 'POST', url: '/api/v3/orders', headers, payload: { cart_uuid: cart.uuid, extra_data: '{"source":"legacy"}' } });
  t.equal(old.json().source, 'legacy', 'before 3.5.0 extra_data.source counts');
  await c.call('DELETE', `/carts/${cart.uuid}`, undefined, 423);
  const cart2 = await c.call('POST', '/carts');
  await c.call('POST', `/carts/${cart2.uuid}/items`, [{ product_identifier: p, quantity: 1 }]);
  await c.call('PUT', `/carts/${cart2.uuid}/customer`, LEAD);
  const o2 = await c.call('POST', '/orders', { cart_uuid: cart2.uuid, extra_data: { source: 'ignored' } });
  t.notOk('source' in o2, 'from 3.5.0 only the field counts: no source, so none is shown');
  const cart3 = await c.call('POST', '/carts');
  t.equal(await c.call('DELETE', `/carts/${cart3.uuid}`), true);
});

t.test('two applications never see each other; a restart on a file store keeps the flow', async (t) => {
  const dir = tempDir(t, 'booking-');
  const file = join(dir, 'state.json');
  const catalog = await testCatalog();
  const start = async () => buildApp({ config: { ...defaults, db: file }, clock: fixedClock(), catalog, store: await createStore(file) });
  let app = await start();
  const a = client(app, 'shop-a');
  const cart = await a.call('POST', '/carts');
  await a.call('POST', `/carts/${cart.uuid}/items`, [{ product_identifier: await a.product(INSTANT), quantity: 1 }]);
  await client(app, 'shop-b').call('GET', `/carts/${cart.uuid}`, undefined, 404);
  await app.close();
  app = await start();
  t.teardown(() => app.close());
  const again = client(app, 'shop-a');
  t.equal((await again.call('GET', `/carts/${cart.uuid}`)).items.length, 1, 'the cart survived the restart');
  await again.call('PUT', `/carts/${cart.uuid}/customer`, LEAD);
  const order = await again.call('POST', '/orders', { cart_uuid: cart.uuid });
  await client(app, 'shop-b').call('GET', `/orders/${order.uuid}`, undefined, 404);
  await again.login();
  t.match(await again.call('POST', '/payments/no/payment', { uuid: order.uuid }), { items: [{ status: 'OK' }] });
});
