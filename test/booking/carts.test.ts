import t from 'tap';
import { fixedClock } from '../../src/clock.js';
import type { FastifyInstance } from 'fastify';
import { APP, buildTestApp, H } from '../helper.js';
import { bookOrder, overInject } from '../book-order.js';

const DAY_MS = 24 * 3600 * 1000;

t.test('carts without an order are deleted 3 months after their last change (server clock)', async (t) => {
  const clock = fixedClock('2026-01-15T10:00:00Z');
  const app = await buildTestApp({ clock });
  t.teardown(() => app.close());
  const create = async () => (await app.inject({ method: 'POST', url: '/api/v3/carts', headers: H })).json().uuid as string;
  const get = (uuid: string) => app.inject({ method: 'GET', url: `/api/v3/carts/${uuid}`, headers: H });
  const old = await create();
  clock.set(new Date('2026-04-15T09:59:00Z'));
  t.equal((await get(old)).statusCode, 200, 'a minute before 3 months it is there');
  clock.set(new Date('2026-04-15T10:00:00Z'));
  const gone = await get(old);
  t.equal(gone.statusCode, 404);
  t.same(gone.json(), { code: '1400', message: `Cart ${old} does not exist: carts without an order are deleted 3 months after their last change` });
  t.ok(app.store.tenant(APP).carts[old], 'still in the state until a sweep');
  const fresh = await create();
  t.notOk(app.store.tenant(APP).carts[old], 'creating a cart swept the expired one out of the state');
  t.ok(app.store.tenant(APP).carts[fresh]);
  clock.advance(DAY_MS);
  await create();
  t.equal(Object.keys(app.store.tenant(APP).carts).length, 2, 'the new carts stay');
});

t.test('GET /carts/{uuid}/form: the legacy checkout form, with the answers the cart holds', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const call = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) => {
    const res = await app.inject({ method, url: `/api/v3${url}`, headers: H, ...(payload === undefined ? {} : { payload: payload as object }) });
    t.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
    return res.json();
  };
  const ECD = '1714c6a7-2046-11e7-9cc9-06a7e332783f';
  const PARTICIPANTS = '0420c908-981e-4e27-a40f-767e8b66574a';
  const product = async (a: string) => (await call('GET', `/activities/${a}/dates/2026-01-20`))[0].groups[0].slots[0].products[0].product_id;
  const cart = await call('POST', '/carts');
  await call('POST', `/carts/${cart.uuid}/items`, [{ product_identifier: await product(ECD), quantity: 1 }]);
  const p = await call('POST', `/carts/${cart.uuid}/items`, [{ product_identifier: await product(PARTICIPANTS), quantity: 2 }]);
  const empty = await call('GET', `/carts/${cart.uuid}/form`);
  t.match(empty.customer, [{ name: 'firstname', value: '', type: 'text', required: true, label: 'First name' }]);
  t.equal(empty.tickets.length, 3, 'one ticket per unit: 1 + 2');
  t.same(empty.tickets.map((x: { passengers_info: unknown[] }) => x.passengers_info.length > 0), [false, true, true], 'passenger questions on the items that need them');
  t.match(empty.extra_customer_data, [{ event: { id: ECD }, fields: [{ name: 'phone_number', value: '' }] }]);
  await call('PUT', `/carts/${cart.uuid}/customer`, { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', musement_newsletter: 'NO', allow_profiling: 'NO', thirdparty_newsletter: 'NO', events_related_newsletter: 'NO', extra_customer_data: { [ECD]: { phone_number: '+39 333' } } });
  await call('PUT', `/carts/${cart.uuid}/items/${p.uuid}/participants`, [{ firstname: 'Ada', lastname: 'L', date_of_birth: '1815-12-10' }, { firstname: 'Byron', lastname: 'L', date_of_birth: '1788-01-22' }]);
  const filled = await call('GET', `/carts/${cart.uuid}/form`);
  t.match(filled.customer[0], { name: 'firstname', value: 'Ada' });
  t.match(filled.tickets[2].passengers_info, [{ name: 'firstname', value: 'Byron' }]);
  t.match(filled.tickets[2].passengers_info.find((f: { name: string }) => f.name === 'date_of_birth'), { type: 'date', value: '1788-01-22' });
  t.match(filled.extra_customer_data[0].fields[0], { value: '+39 333' });
  const participants = await call('GET', `/carts/${cart.uuid}/items/${p.uuid}/participants`);
  t.equal(participants[0].date_of_birth, '1815-12-10T00:00:00+00:00', 'participants are shown with date-times, as the vendor schema has them');
});

t.test("a cart or order of another application: without --shared the 404 and the report name the application that holds it; with --shared they do not", async (t) => {
  const INSTANT = '4e451a8a-2ee5-493f-aa12-a39f13d7253e';
  const item = async (app: FastifyInstance) => [{ product_identifier: (await app.inject({ url: `/api/v3/activities/${INSTANT}/dates/2026-01-20`, headers: H })).json()[0].groups[0].slots[0].products[0].product_id, quantity: 1 }];
  const as = (application: string, token?: string) => ({ 'x-service-application': application, 'x-service-version': '3.5.0', ...(token ? { authorization: `Bearer ${token}` } : {}) });

  const open = await buildTestApp();
  t.teardown(() => open.close());
  const cart = (await open.inject({ method: 'POST', url: '/api/v3/carts', headers: as('shop-web') })).json().uuid as string;
  const added = await open.inject({ method: 'POST', url: `/api/v3/carts/${cart}/items`, headers: as('shop-app'), payload: await item(open) });
  t.equal(added.statusCode, 404, 'still the not-found the vendor answers');
  t.same(added.json(), { code: '1400', message: `Cart ${cart} was created under application "shop-web": send the X-Service-Application header it was created with` });
  const order = await bookOrder(overInject(open, 'shop-web'));
  const read = await open.inject({ url: `/api/v3/orders/${order.uuid}`, headers: as('shop-app') });
  t.same([read.statusCode, read.json().message], [404, `Order ${order.uuid} was created under application "shop-web": send the X-Service-Application header it was created with`]);
  t.match(open.integrationReport!.get('shop-app').findings, [
    { id: 'id-of-other-application', severity: 'error', operation: 'POST /carts/{cartUuid}/items', message: /was created under application "shop-web"/, advice: /Send the same X-Service-Application on every request/ },
    { id: 'id-of-other-application', operation: 'GET /orders/{orderUuid}' },
  ]);
  const unknown = await open.inject({ url: '/api/v3/carts/0b5a3c8e-1111-4222-8333-444455556666', headers: as('shop-app') });
  t.equal(unknown.json().message, 'Cart 0b5a3c8e-1111-4222-8333-444455556666 does not exist', 'a cart no application holds: the plain 404');

  const shared = await buildTestApp({ config: { adminToken: 'adm1n', shared: true } });
  t.teardown(() => shared.close());
  const { client_id, client_secret } = (await shared.inject({ method: 'POST', url: '/__admin/clients', headers: { authorization: 'Bearer adm1n' }, payload: { applications: ['shop-web', 'shop-app'], scopes: [] } })).json();
  const token = async (application: string) => (await shared.inject({ method: 'POST', url: '/api/v3/login', headers: as(application), payload: { client_id, client_secret, grant_type: 'client_credentials' } })).json().access_token as string;
  const theirs = (await shared.inject({ method: 'POST', url: '/api/v3/carts', headers: as('shop-web', await token('shop-web')) })).json().uuid as string;
  t.ok(shared.store.tenant('shop-web').carts[theirs], 'the cart exists under shop-web');
  const refused = await shared.inject({ method: 'POST', url: `/api/v3/carts/${theirs}/items`, headers: as('shop-app', await token('shop-app')), payload: await item(shared) });
  t.same([refused.statusCode, refused.json()], [404, { code: '1400', message: `Cart ${theirs} does not exist` }], 'a shared sandbox does not say another application holds it');
  const findings = shared.integrationReport!.get('shop-app').findings;
  t.same(findings.map((f) => f.id), ['not-found']);
  t.notMatch(JSON.stringify(findings), /shop-web/, 'nor does its report');
});
