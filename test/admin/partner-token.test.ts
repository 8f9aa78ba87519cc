// Control scoped to the caller: with an admin token, a partner's own access token (POST /login, bound
// to application A) opens the control API for A only. Another application's resources are a 404 that
// reveals nothing, server-wide operations a 403; the admin token keeps full access.
import t from 'tap';
import { fixedClock } from '../../src/clock.js';
import { buildTestApp } from '../helper.js';
import { bookOrder, overInject } from '../book-order.js';

const ADMIN = 'adm1n-t0ken';
const SANDBOX = { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' };

async function setup() {
  const app = await buildTestApp({ config: { adminToken: ADMIN }, clock: fixedClock('2026-01-15T10:00:00Z') });
  const login = async (application: string) => (await app.inject({ method: 'POST', url: '/api/v3/login', headers: { 'x-service-application': application }, payload: SANDBOX })).json().access_token as string;
  const orderA = await bookOrder(overInject(app, 'team-a'));
  const orderB = await bookOrder(overInject(app, 'team-b'));
  const tokens = { a: await login('team-a'), b: await login('team-b') };
  const as = (token: string) => (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
    app.inject({ method, url: `/__admin${url}`, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
  return { app, orderA, orderB, partnerA: as(tokens.a), admin: as(ADMIN), tokens };
}

t.test("a partner token reads and acts on its own application, and another's is a 404", async (t) => {
  const { app, orderA, orderB, partnerA, admin } = await setup();
  t.teardown(() => app.close());

  const orders = await partnerA('GET', '/orders');
  t.equal(orders.statusCode, 200);
  t.same(orders.json().orders.map((o: { uuid: string }) => o.uuid), [orderA.uuid], 'only its own orders');
  const other = await partnerA('GET', '/orders?application=team-b');
  t.equal(other.statusCode, 404);
  t.same(Object.keys(other.json()).sort(), ['code', 'message']);
  t.equal((await partnerA('GET', '/orders?application=no-such-app')).json().message, other.json().message.replace('team-b', 'no-such-app'), 'the same answer whether the other application exists or not');

  const itemA = orderA.items[0]!.uuid;
  const itemB = orderB.items[0]!.uuid;
  t.equal((await partnerA('POST', `/order-items/${itemB}/status`, { status: 'OK' })).statusCode, 404, "another application's item is not found");
  t.equal((await partnerA('POST', `/order-items/${itemA}/status`, { status: 'OK' })).statusCode, 200, 'its own moves');

  t.same((await partnerA('GET', '/requests')).json().requests.map((r: { application: string }) => r.application).filter((a: string) => a !== 'team-a'), [], 'only its own requests');
  const idB = (await admin('GET', '/requests?application=team-b')).json().requests[0].id;
  t.equal((await partnerA('GET', `/requests/${idB}`)).statusCode, 404, "another application's request is not found");
  t.equal((await partnerA('GET', '/report')).json().application, 'team-a', 'its own report');
  t.equal((await partnerA('GET', '/report?application=team-b')).statusCode, 404);

  const deliveriesB = (await admin('GET', '/webhooks/deliveries?application=team-b')).json().deliveries;
  if (deliveriesB.length) t.equal((await partnerA('POST', `/webhooks/deliveries/${deliveriesB[0].id}/redeliver`)).statusCode, 404, "another application's delivery is not found");

  // Its clock, its faults, its receiver, its chaos: all its own, without naming the application.
  t.match((await partnerA('POST', '/clock', { advance: 'PT30M' })).json(), { application: 'team-a', now: '2026-01-15T10:30:00.000Z' });
  t.match((await admin('GET', '/clock')).json(), { now: '2026-01-15T10:00:00.000Z' }, 'the server clock did not move');
  t.match((await partnerA('POST', '/faults', { method: 'GET', path: '/currencies', status: 503 })).json(), { application: 'team-a' });
  await admin('POST', '/faults', { application: 'team-b', method: 'GET', path: '/cities', status: 503 });
  t.same((await partnerA('GET', '/faults')).json().faults.map((f: { application: string }) => f.application), ['team-a'], "B's fault is not listed");
  t.equal((await partnerA('DELETE', '/faults')).statusCode, 204);
  t.equal((await admin('GET', '/faults')).json().faults.length, 1, "clearing took only A's");
  t.match((await partnerA('PUT', '/webhooks/config', { url: 'http://127.0.0.1:9/a' })).json(), { application: 'team-a', url: 'http://127.0.0.1:9/a' });
  t.same((await admin('GET', '/webhooks/config')).json().default, null, 'the server-wide receiver was not touched');
  t.same(Object.keys((await partnerA('GET', '/webhooks/config')).json().applications), ['team-a']);
  t.match((await partnerA('PUT', '/webhooks/chaos', { fail_first: 1 })).json(), { application: 'team-a' });
  t.same(Object.keys((await partnerA('GET', '/webhooks/chaos')).json().applications), ['team-a']);

  // A reset of its own application only.
  t.equal((await partnerA('POST', '/reset', {})).statusCode, 200);
  t.equal((await admin('GET', '/orders?application=team-b')).json().orders.length, 1, "B's order is still there");
  t.equal((await admin('GET', '/orders?application=team-a')).json().orders.length, 0, "A's is gone");
  t.equal((await partnerA('POST', '/reset', { application: 'team-b' })).statusCode, 401, "after its reset the token is gone too: A's tokens went with A's state");
});

t.test('server-wide operations are 403 to a partner token; the admin token keeps full access', async (t) => {
  const { app, partnerA, admin } = await setup();
  t.teardown(() => app.close());
  for (const [method, url, payload] of [
    ['POST', '/clients', { applications: ['team-a'], scopes: [] }],
    ['GET', '/clients'],
    ['DELETE', '/clients/cl_x'],
  ] as const) {
    const res = await partnerA(method, url, payload);
    t.equal(res.statusCode, 403, `${method} ${url}`);
    t.match(res.json(), { code: '0', message: /server-wide: it needs the admin token/ });
  }
  t.equal((await partnerA('GET', '/scenarios')).statusCode, 200, 'the scenario definitions are readable');
  t.equal((await app.inject({ url: '/__admin/health' })).statusCode, 200, 'health stays open');
  t.equal((await admin('GET', '/clients')).statusCode, 200, 'the admin token opens everything');
  t.equal((await admin('GET', '/orders')).json().orders.length, 2, 'every application');
  t.equal((await admin('POST', '/reset', {})).statusCode, 200);
});

t.test('every control operation answers a partner token as the document says', async (t) => {
  const { app, partnerA } = await setup();
  t.teardown(() => app.close());
  const doc = (await app.inject({ url: '/__admin/docs/json' })).json() as { paths: Record<string, Record<string, { 'x-partner-token'?: string; parameters?: Array<{ in: string; name: string }> }>> };
  let checked = 0;
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const access = op['x-partner-token'];
      if (path === '/__admin/health') {
        t.notOk(access, 'health needs no token at all');
        continue;
      }
      t.ok(access, `${method.toUpperCase()} ${path} says what a partner token may do`);
      const url = path.replace('/__admin', '').replace(/\{[^}]+\}/g, 'x');
      const m = method.toUpperCase() as 'GET' | 'POST' | 'PUT' | 'DELETE';
      if (access === 'admin-only') {
        t.equal((await partnerA(m, url, m === 'GET' || m === 'DELETE' ? undefined : {})).statusCode, 403, `${m} ${path}: 403`);
        checked++;
      } else if (access === 'own-application' && path !== '/__admin/events') {
        const inQuery = op.parameters?.some((p) => p.in === 'query' && p.name === 'application');
        const res = inQuery ? await partnerA(m, `${url}?application=team-b`, m === 'GET' || m === 'DELETE' ? undefined : {}) : await partnerA(m, url, { application: 'team-b' });
        t.equal(res.statusCode, 404, `${m} ${path} for another application: 404`);
        checked++;
      }
    }
  }
  t.ok(checked >= 20, `${checked} operations checked`);
});

t.test('a partner token that expired on its own clock, or a made-up one, is refused', async (t) => {
  const { app, partnerA, admin } = await setup();
  t.teardown(() => app.close());
  await admin('POST', '/clock', { application: 'team-a', advance: 'PT2H' });
  t.equal((await partnerA('GET', '/orders')).statusCode, 401, "expired on A's clock");
  const made = await app.inject({ url: '/__admin/orders', headers: { authorization: 'Bearer made-up' } });
  t.equal(made.statusCode, 401);
  t.match(made.json().message, /neither this server's admin token nor a live partner token/);
});
