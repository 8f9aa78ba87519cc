// A shared sandbox (--shared): nobody acts for an application without a token bound to it. Naming
// an application in the header is not enough to create its carts or read its orders; another
// partner's token is not either; the operator's admin token acts for any. Without --shared nothing
// changes.
import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from '../helper.js';
import { bookOrder, CONFIRM, overInject } from '../book-order.js';
import { tempDir } from '../tmp.js';

const ADMIN = 'adm1n';

/** A shared sandbox with one registered partner per application; answers its client. */
async function register(app: FastifyInstance, application: string, scopes = ['no-payment', 'order-item-cancellation']) {
  const res = await app.inject({ method: 'POST', url: '/__admin/clients', headers: { authorization: `Bearer ${ADMIN}` }, payload: { applications: [application], scopes } });
  const { client_id, client_secret } = res.json() as { client_id: string; client_secret: string };
  return { client_id, client_secret };
}

async function tokenFor(app: FastifyInstance, application: string) {
  const client = await register(app, application);
  const res = await app.inject({ method: 'POST', url: '/api/v3/login', headers: { 'x-service-application': application }, payload: { ...client, grant_type: 'client_credentials' } });
  return res.json().access_token as string;
}

const as = (app: FastifyInstance, application: string, token?: string) => (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
  app.inject({ method, url: `/api/v3${url}`, headers: { 'x-service-application': application, ...(token ? { authorization: `Bearer ${token}` } : {}) }, ...(payload ? { payload } : {}) });

t.test('the header alone neither creates carts nor reads orders of an application', async (t) => {
  const app = await buildTestApp({ config: { shared: true, adminToken: ADMIN } });
  t.teardown(() => app.close());
  const client = await register(app, 'victim-shop');
  const order = await bookOrder(overInject(app, 'victim-shop'), undefined, client);

  const anonymous = as(app, 'victim-shop');
  const cart = await anonymous('POST', '/carts');
  t.equal(cart.statusCode, 401, 'no cart in its name');
  t.same(Object.keys(cart.json()).sort(), ['code', 'message']);
  t.match(cart.json(), { code: '1401', message: /^This sandbox is shared: acting for application "victim-shop" needs its access token: Authorization: Bearer <token> from POST \/login, with the client_id and client_secret its operator registered for you$/ });
  t.match(cart.headers['www-authenticate'], /^Bearer/);
  const read = await anonymous('GET', `/orders/${order.uuid}`);
  t.equal(read.statusCode, 401, 'nor its orders');
  t.notOk(read.body.includes('Lovelace') || read.body.includes('ada@example.com'), "nothing of the customer's");
  for (const [method, url] of [['GET', `/orders/${order.uuid}/items/${order.items[0]?.uuid}/refund-policies`], ['POST', '/payments/no/payment'], ['GET', `/activities/${'0f5821c5-2046-11e7-9cc9-06a7e332783f'}/destinations`]] as const) {
    t.equal((await anonymous(method, url, method === 'POST' ? { uuid: order.uuid } : undefined)).statusCode, 401, `${method} ${url}`);
  }
  t.equal((await anonymous('GET', '/activities?limit=1')).statusCode, 200, 'catalog reads stay open');
  t.equal((await anonymous('GET', '/no-such-route')).statusCode, 404, 'an unknown URL is a 404 for everyone');

  const other = as(app, 'victim-shop', await tokenFor(app, 'attacker-shop'));
  const refused = await other('POST', '/carts');
  t.equal(refused.statusCode, 401, "another application's token does not act for it");
  t.match(refused.json().message, /issued for application "attacker-shop", not "victim-shop"/);
  t.equal((await other('GET', `/orders/${order.uuid}`)).statusCode, 401);

  const operator = as(app, 'victim-shop', ADMIN);
  t.equal((await operator('POST', '/carts')).statusCode, 200, "the operator's admin token acts for any application");
  t.equal((await operator('GET', `/orders/${order.uuid}`)).json().customer?.lastname, 'Lovelace');
  t.equal((await as(app, 'victim-shop', `${ADMIN}x`)('GET', `/orders/${order.uuid}`)).statusCode, 401, 'a token that is not quite the admin token is a 401');
});

t.test("a stranger's requests, refused or not, leave nothing in another application's journal or report", async (t) => {
  const app = await buildTestApp({ config: { shared: true, adminToken: ADMIN } });
  t.teardown(() => app.close());
  const token = await tokenFor(app, 'victim-shop');
  const victim = as(app, 'victim-shop', token);
  t.equal((await victim('POST', '/carts')).statusCode, 200);
  const seen = async () => ({
    journal: (await app.inject({ url: '/__admin/requests?application=victim-shop', headers: { authorization: `Bearer ${ADMIN}` } })).json().requests.length as number,
    report: (await app.inject({ url: '/__admin/report?application=victim-shop', headers: { authorization: `Bearer ${ADMIN}` } })).json().requests as number,
  });
  const before = await seen();
  t.ok(before.journal >= 2 && before.report >= 2, `the partner's own login and cart count (${JSON.stringify(before)})`);

  const stranger = as(app, 'victim-shop');
  t.equal((await stranger('POST', '/carts')).statusCode, 401);
  t.equal((await stranger('GET', '/activities?limit=1')).statusCode, 200, 'an open catalog read');
  t.equal((await as(app, 'victim-shop', 'guessed')('GET', '/carts/x')).statusCode, 401, 'a guessed token');
  t.same(await seen(), before, 'neither the refused requests nor the anonymous read count for the named application');

  t.equal((await victim('GET', '/activities?limit=1')).statusCode, 200);
  t.same(await seen(), { journal: before.journal + 1, report: before.report + 1 }, "the partner's own request with its token counts");

  // Its faults are its own too: a stranger neither uses them up nor gets them instead of a 401.
  for (const path of ['/activities', '/carts']) {
    const armed = await app.inject({ method: 'POST', url: '/__admin/faults', headers: { authorization: `Bearer ${ADMIN}` }, payload: { method: path === '/carts' ? 'POST' : 'GET', path, status: 503, times: 1, application: 'victim-shop' } });
    t.equal(armed.statusCode, 201);
  }
  t.equal((await stranger('GET', '/activities')).statusCode, 200, "a stranger's catalog read does not use up the partner's fault");
  t.equal((await stranger('POST', '/carts')).statusCode, 401, 'a fault never hides the 401');
  t.equal((await victim('GET', '/activities')).statusCode, 503, 'the partner gets its fault');
  t.equal((await victim('POST', '/carts')).statusCode, 503);
});

t.test('without --shared a laptop sandbox stays open: the header names the application, no token needed', async (t) => {
  for (const config of [{}, { adminToken: ADMIN }]) {
    const app = await buildTestApp({ config });
    const anonymous = as(app, 'my-app');
    const cart = await anonymous('POST', '/carts');
    t.equal(cart.statusCode, 200, JSON.stringify(config));
    t.equal((await anonymous('GET', `/carts/${cart.json().uuid}`)).statusCode, 200);
    t.equal((await as(app, 'my-app', ADMIN)('GET', '/activities?limit=1')).statusCode, 401, 'and the admin token is no partner token there');
    await app.close();
  }
});

const login = (app: FastifyInstance, application: string, client: { client_id: string; client_secret: string }) =>
  app.inject({ method: 'POST', url: '/api/v3/login', headers: { 'x-service-application': application }, payload: { ...client, grant_type: 'client_credentials' } });

t.test('only registered credentials: no public test client logs in for a registered application, nor a fixture client for any application', async (t) => {
  const dir = tempDir(t, 'fixtures-');
  writeFileSync(join(dir, 'clients.json'), JSON.stringify({
    clients: [
      { client_id: 'ops-any', client_secret: 'ops-any-secret', scopes: [], applications: '*' },
      { client_id: 'ops-own', client_secret: 'ops-own-secret', scopes: [], applications: ['ops-shop'] },
    ],
  }));
  const app = await buildTestApp({ config: { shared: true, adminToken: ADMIN, fixtures: dir } });
  t.teardown(() => app.close());
  for (const application of ['victim-shop', 'acme-web']) await register(app, application);
  for (const [client_id, client_secret, application] of [
    ['sandbox-client', 'sandbox-secret', 'victim-shop'],
    ['limited-client', 'limited-secret', 'victim-shop'],
    ['cancel-only-client', 'cancel-only-secret', 'victim-shop'],
    ['acme-client', 'acme-secret', 'acme-web'],
    ['ops-any', 'ops-any-secret', 'victim-shop'],
  ] as const) {
    const res = await login(app, application, { client_id, client_secret });
    t.equal(res.statusCode, 401, `${client_id} for ${application}`);
    t.match(res.json().message, /this sandbox is shared, and its public test clients are off: log in with the client_id and client_secret the sandbox's operator registered for you/);
  }
  t.equal((await login(app, 'ops-shop', { client_id: 'ops-own', client_secret: 'ops-own-secret' })).statusCode, 200, "the operator's own fixture client, bound to its applications, stays");

  const open = await buildTestApp({ config: { fixtures: dir } });
  t.teardown(() => open.close());
  for (const [client_id, client_secret] of [['sandbox-client', 'sandbox-secret'], ['limited-client', 'limited-secret'], ['ops-any', 'ops-any-secret']]) {
    t.equal((await login(open, 'victim-shop', { client_id: client_id as string, client_secret: client_secret as string })).statusCode, 200, `without --shared ${client_id} logs in as before`);
  }
});

t.test('the operator registers partners with the scopes of limited-client and cancel-only-client, and their edge cases stay testable', async (t) => {
  const app = await buildTestApp({ config: { shared: true, adminToken: ADMIN } });
  t.teardown(() => app.close());
  const order = async (scopes: string[]) => {
    const res = await login(app, 'edge-shop', await register(app, 'edge-shop', scopes));
    t.equal(res.json().scope, scopes.join(' '));
    const call = as(app, 'edge-shop', res.json().access_token);
    const cart = (await call('POST', '/carts')).json();
    const [day] = (await call('GET', `/activities/${CONFIRM}/dates/2026-01-20`)).json();
    await call('POST', `/carts/${cart.uuid}/items`, [{ product_identifier: day.groups[0].slots[0].products[0].product_id, quantity: 1, language: 'en' }] as unknown as object);
    await app.inject({ method: 'PUT', url: `/api/v3/carts/${cart.uuid}/customer`, headers: { 'x-service-application': 'edge-shop', authorization: `Bearer ${res.json().access_token}` }, payload: { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', musement_newsletter: 'NO', allow_profiling: 'NO', thirdparty_newsletter: 'NO', events_related_newsletter: 'NO' } });
    const created = await call('POST', '/orders', { cart_uuid: cart.uuid });
    t.equal(created.statusCode, 200, 'an order');
    return { call, order: created.json() };
  };
  const limited = await order(['comment']);
  t.equal((await limited.call('POST', '/payments/no/payment', { uuid: limited.order.uuid })).statusCode, 422, 'limited-client\'s case: no no-payment scope, 422');
  const cancelOnly = await order(['order-item-cancellation']);
  t.equal((await cancelOnly.call('POST', '/payments/no/payment', { uuid: cancelOnly.order.uuid })).statusCode, 422, "cancel-only-client's case: 422 on payment too");
  const operator = as(app, 'edge-shop', ADMIN);
  for (const { order } of [limited, cancelOnly]) {
    t.equal((await operator('POST', '/payments/no/payment', { uuid: order.uuid })).statusCode, 200, 'the operator pays');
    await app.inject({ method: 'POST', url: `/__admin/order-items/${order.items[0].uuid}/status`, headers: { authorization: `Bearer ${ADMIN}` }, payload: { status: 'OK' } });
  }
  const cancel = (who: typeof limited) => who.call('DELETE', `/orders/${who.order.uuid}/items/${who.order.items[0].uuid}`, { cancellation_reason: 'CANCELLED-BY-CUSTOMER' });
  t.equal((await cancel(limited)).statusCode, 403, 'without the order-item-cancellation scope no cancellation');
  const done = await cancel(cancelOnly);
  t.equal(done.statusCode, 204, `with it, the cancellation ${done.body}`);
});

t.test("a token expired on its application's own clock says so, and names the move", async (t) => {
  const app = await buildTestApp({ config: { shared: true, adminToken: ADMIN } });
  t.teardown(() => app.close());
  const token = await tokenFor(app, 'late-shop');
  const moved = await app.inject({ method: 'POST', url: '/__admin/clock', headers: { authorization: `Bearer ${token}` }, payload: { advance: 'PT2H' } });
  t.equal(moved.statusCode, 200, 'the partner moves its own clock');
  const why = /^Access token expired at 2026-01-15T11:00:00\.000Z on the clock of application "late-shop", which POST \/__admin\/clock moved by \+PT2H \(its time is 2026-01-15T12:00:00\.000Z\): call POST \/login for a new one$/;
  const partner = await as(app, 'late-shop', token)('POST', '/carts');
  t.equal(partner.statusCode, 401);
  t.match(partner.json().message, why, 'on the partner API');
  const control = await app.inject({ url: '/__admin/orders', headers: { authorization: `Bearer ${token}` } });
  t.equal(control.statusCode, 401);
  t.match(control.json().message, why, 'and on the control API');
  const other = await tokenFor(app, 'on-time-shop');
  await app.inject({ method: 'POST', url: '/__admin/clock', headers: { authorization: `Bearer ${ADMIN}` }, payload: { advance: 'PT2H' } });
  t.match((await as(app, 'on-time-shop', other)('POST', '/carts')).json().message, /^Access token expired at \S+: call POST \/login for a new one$/, 'a token expired on the server clock says only that');
});
