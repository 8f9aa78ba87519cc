// A shared sandbox (--shared): nobody acts for an application without a token bound to it. Naming
// an application in the header is not enough to create its carts or read its orders; another
// partner's token is not either; the operator's admin token acts for any. Without --shared nothing
// changes.
import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from '../helper.js';
import { bookOrder, overInject } from '../book-order.js';

const ADMIN = 'adm1n';

/** A shared sandbox with one registered partner per application; answers its client. */
async function register(app: FastifyInstance, application: string) {
  const res = await app.inject({ method: 'POST', url: '/__admin/clients', headers: { authorization: `Bearer ${ADMIN}` }, payload: { applications: [application], scopes: ['no-payment', 'order-item-cancellation'] } });
  const { client_id, client_secret } = res.json() as { client_id: string; client_secret: string };
  return { client_id, client_secret };
}

async function tokenFor(app: FastifyInstance, application: string) {
  const client = await register(app, application);
  const res = await app.inject({ method: 'POST', url: '/api/v3/login', headers: { 'x-service-application': application }, payload: { ...client, grant_type: 'client_credentials' } });
  return res.json().access_token as string;
}

const as = (app: FastifyInstance, application: string, token?: string) => (method: 'GET' | 'POST', url: string, payload?: object) =>
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
  t.match(cart.json(), { code: '1401', message: /This sandbox is shared: acting for application "victim-shop" needs its access token.*POST \/login.*registered/ });
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
