// A shared sandbox's request rate per application (--shared --rate-limit): past the limit an
// application gets 429 {code, message} with Retry-After; other applications are not affected.
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { Pool } from 'undici';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from '../helper.js';
import { bookOrder, overInject } from '../book-order.js';
import { fixedClock } from '../../src/clock.js';

t.test('past its rate an application gets 429 with Retry-After, and another application does not', async (t) => {
  const clock = fixedClock();
  const app = await buildTestApp({ clock, config: { shared: true, adminToken: 'x', rateLimit: 5 } });
  t.teardown(() => app.close());
  const get = (application: string) => app.inject({ url: '/api/v3/currencies', headers: { 'x-service-application': application, authorization: 'Bearer x' } });
  for (let i = 0; i < 5; i++) {
    const ok = await get('noisy');
    t.equal(ok.statusCode, 200);
    t.notOk(ok.headers['x-ratelimit-limit'], 'within the limit: no extra headers, as the real API');
  }
  // The windows follow the server clock: 950 ms into this one, 50 ms of it are left.
  clock.advance(950);
  const asked = Date.now();
  const refused = await get('noisy');
  t.equal(refused.statusCode, 429);
  t.ok(Date.now() - asked >= 45, `the refusal is held until the window opens again, so that a client retrying at once cannot flood (${Date.now() - asked} ms)`);
  t.same(Object.keys(refused.json()).sort(), ['code', 'message']);
  t.match(refused.json().message, /Application "noisy" sent more than 5 requests in a second.*retry after 1 s/);
  t.equal(refused.headers['retry-after'], '1');
  t.equal((await get('quiet')).statusCode, 200, 'another application still gets its answers');
  clock.advance(50);
  t.equal((await get('noisy')).statusCode, 200, 'a second later it is served again');
});

t.test('no limit outside shared mode, or with --rate-limit 0', async (t) => {
  for (const config of [{ rateLimit: 1 }, { shared: true, adminToken: 'x', rateLimit: 0 }]) {
    const app = await buildTestApp({ config });
    for (let i = 0; i < 5; i++) t.equal((await app.inject({ url: '/api/v3/currencies', headers: { 'x-service-application': 'a' } })).statusCode, 200);
    await app.close();
  }
});

const ADMIN = { authorization: 'Bearer x' };

/** A registered partner of `application` on a shared sandbox whose admin token is x. */
async function partner(app: FastifyInstance, application: string) {
  return (await app.inject({ method: 'POST', url: '/__admin/clients', headers: ADMIN, payload: { applications: [application], scopes: ['no-payment'] } })).json() as { client_id: string; client_secret: string };
}

const login = async (app: FastifyInstance, application: string, client: { client_id: string; client_secret: string }) =>
  (await app.inject({ method: 'POST', url: '/api/v3/login', headers: { 'x-service-application': application }, payload: { ...client, grant_type: 'client_credentials' } })).json().access_token as string;

t.test('anonymous floods in another application\'s name spend nothing of its rate or its state', async (t) => {
  const clock = fixedClock();
  const app = await buildTestApp({ clock, config: { shared: true, adminToken: 'x', rateLimit: 5, stateLimit: 3 } });
  t.teardown(() => app.close());
  // Logged in first: a login has no token yet, and counts for its address like any request without one.
  const bravo = await login(app, 'bravo-shop', await partner(app, 'bravo-shop'));
  const carol = await login(app, 'carol-shop', await partner(app, 'carol-shop'));
  clock.advance(1000);
  const get = (token?: string) => app.inject({ url: '/api/v3/currencies', headers: { 'x-service-application': 'bravo-shop', ...(token ? { authorization: `Bearer ${token}` } : {}) } });
  for (let i = 0; i < 5; i++) t.equal((await get()).statusCode, 200, 'an anonymous catalog read');
  const anonymous = await get();
  t.equal(anonymous.statusCode, 429, 'the sixth in a second from that address is refused');
  t.match(anonymous.json().message, /Address 127\.0\.0\.1 sent more than 5 requests without a token in a second, the limit per address/);
  for (let i = 0; i < 5; i++) t.equal((await get(bravo)).statusCode, 200, "bravo-shop's own reads are its own: none of its 5 was spent");

  const cart = (token?: string) => app.inject({ method: 'POST', url: '/api/v3/carts', headers: { 'x-service-application': 'carol-shop', ...(token ? { authorization: `Bearer ${token}` } : {}) } });
  for (let i = 0; i < 4; i++) t.equal((await cart()).statusCode, 401, 'no anonymous cart in its name');
  t.equal((await cart(carol)).statusCode, 200, "carol-shop's own cart is taken");
});

t.test('at its state limit an application lets go of expired tokens, then of carts never ordered, oldest first; its orders stay', async (t) => {
  const clock = fixedClock();
  const app = await buildTestApp({ clock, config: { shared: true, adminToken: 'x', rateLimit: 0, stateLimit: 6 } });
  t.teardown(() => app.close());
  const client = await partner(app, 'full');
  const old = await login(app, 'full', client);
  clock.advance(3000_000);
  const order = await bookOrder(overInject(app, 'full'), undefined, client);
  const token = await login(app, 'full', client);
  clock.advance(700_000); // the first token expired; the others did not
  const call = (method: 'GET' | 'POST', url: string, bearer = token) => app.inject({ method, url: `/api/v3${url}`, headers: { 'x-service-application': 'full', authorization: `Bearer ${bearer}` } });
  const carts: string[] = [];
  const newCart = async () => {
    clock.advance(1000); // a count is trusted for a second of the server clock
    const res = await call('POST', '/carts');
    t.equal(res.statusCode, 200, `cart ${carts.length + 1} is taken`);
    carts.push(res.json().uuid);
  };
  // 3 tokens, the ordered cart and its order: 5 records; one cart more makes 6, the limit.
  await newCart();
  t.match((await call('GET', `/orders/${order.uuid}`, old)).json().message, /expired/, 'the first token is expired, not yet gone');
  await newCart();
  t.match((await call('GET', `/orders/${order.uuid}`, old)).json().message, /Invalid access token/, 'at the limit the expired token went first');
  await newCart();
  t.equal((await call('GET', `/carts/${carts[0]}`)).statusCode, 404, 'then the oldest cart never ordered');
  t.equal((await call('GET', `/carts/${carts[1]}`)).statusCode, 200, 'the next one stays');
  t.equal((await call('GET', `/orders/${order.uuid}`)).statusCode, 200, 'and the order');
});

t.test('an application full of what it cannot lose is refused (429 with Retry-After), saying what it keeps; reads, login and a reset go on', async (t) => {
  const clock = fixedClock();
  const app = await buildTestApp({ clock, config: { shared: true, adminToken: 'x', rateLimit: 0, stateLimit: 3 } });
  t.teardown(() => app.close());
  const client = await partner(app, 'full');
  await bookOrder(overInject(app, 'full'), undefined, client); // a token, the ordered cart, its order
  clock.advance(1000);
  const post = (application: string, url: string, payload?: object) => app.inject({ method: 'POST', url: `/api/v3${url}`, headers: { 'x-service-application': application, ...(url === '/login' ? {} : ADMIN) }, ...(payload ? { payload } : {}) });
  const refused = await post('full', '/carts');
  t.equal(refused.statusCode, 429);
  t.same(Object.keys(refused.json()).sort(), ['code', 'message']);
  t.match(refused.json().message, /^Application "full" is full: 1 orders, 1 carts, 0 deliveries, 0 scenario runs, 1 live tokens \(at most 3; unordered carts and expired tokens went first\)\. POST \/__admin\/reset of it starts afresh, orders included$/);
  t.ok(refused.json().message.length < 300);
  t.equal(refused.headers['retry-after'], '3600');
  t.equal((await post('other', '/carts')).statusCode, 200, 'another application is not affected');
  t.equal((await app.inject({ url: '/api/v3/currencies', headers: { 'x-service-application': 'full' } })).statusCode, 200, 'reads go on');
  t.equal((await post('full', '/login', { ...client, grant_type: 'client_credentials' })).statusCode, 200, 'a login goes on, so that the partner can reset');
  await app.inject({ method: 'POST', url: '/__admin/reset', headers: ADMIN, payload: { application: 'full' } });
  t.equal((await post('full', '/carts')).statusCode, 200, 'after a reset it may write again');
});

t.test('applications take turns: a request of a quiet application is answered before most of what a noisy one sent at once', async (t) => {
  const order = async (shared: boolean) => {
    const app = await buildTestApp({ config: shared ? { shared: true, adminToken: 'x', rateLimit: 0 } : {} });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const pool = new Pool(origin, { connections: NOISY + 1 });
    try {
      // Every connection open first, so that the requests below arrive together.
      await Promise.all(Array.from({ length: NOISY + 1 }, () => pool.request({ path: '/api/v3/currencies', method: 'GET', headers: { 'x-service-application': 'warm' } }).then((r) => r.body.dump())));
      const answered: string[] = [];
      // Each application's own token (the operator's acts for both): requests are charged to who asked.
      const token = shared ? { authorization: 'Bearer x' } : {};
      const get = (application: string) =>
        pool.request({ path: '/api/v3/activities?limit=20', method: 'GET', headers: { 'x-service-application': application, ...token } }).then(async (r) => {
          await r.body.dump();
          answered.push(application);
          return r.statusCode;
        });
      const noisy = Array.from({ length: NOISY }, () => get('noisy'));
      const statuses = await Promise.all([...noisy, get('quiet')]);
      t.ok(statuses.every((s) => s === 200), 'every request answered');
      return answered.indexOf('quiet');
    } finally {
      await pool.close();
      await app.close();
    }
  };
  const NOISY = 60;
  const apart = await order(true);
  t.ok(apart < NOISY / 2, `shared: the quiet request was answered after ${apart} of the ${NOISY} noisy ones`);
  const together = await order(false);
  t.ok(together > apart, `without --shared (no turns) it waited longer: after ${together} of them`);
});
