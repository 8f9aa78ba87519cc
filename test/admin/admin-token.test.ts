// --admin-token: every /__admin route but GET /__admin/health wants `Authorization: Bearer <token>`.
import t from 'tap';
import { buildTestApp, H } from '../helper.js';

const TOKEN = 'admin-s3cret';
const WRONG = 'not-the-admin-token';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** One of every kind of control call: GET, POST with a body, PUT, DELETE, a nested plugin's route. */
const CALLS: Array<{ method: 'GET' | 'POST' | 'PUT' | 'DELETE'; url: string; payload?: object }> = [
  { method: 'GET', url: '/__admin/orders' },
  { method: 'GET', url: '/__admin/requests' },
  { method: 'GET', url: '/__admin/scenarios' },
  { method: 'GET', url: '/__admin/webhooks/deliveries' },
  { method: 'POST', url: '/__admin/clock', payload: { advance: 'PT1M' } },
  { method: 'POST', url: '/__admin/reset', payload: {} },
  { method: 'PUT', url: '/__admin/webhooks/config', payload: { url: 'http://127.0.0.1:9/hook' } },
  { method: 'DELETE', url: '/__admin/faults' },
];

t.test('with a token: no header or a wrong token is a 401 naming what to send, the right one passes', async (t) => {
  const app = await buildTestApp({ config: { adminToken: TOKEN } });
  t.teardown(() => app.close());
  for (const call of CALLS) {
    const what = `${call.method} ${call.url}`;
    const none = await app.inject(call);
    t.equal(none.statusCode, 401, `${what}: no header`);
    t.same(Object.keys(none.json()).sort(), ['code', 'message'], `${what}: {code, message}`);
    t.equal(none.json().code, '1401');
    t.match(none.json().message, /admin token.*Authorization: Bearer/);
    t.equal(none.headers['www-authenticate'], 'Bearer realm="mock-server-admin"', `${what}: WWW-Authenticate`);

    const wrong = await app.inject({ ...call, headers: bearer(WRONG) });
    t.equal(wrong.statusCode, 401, `${what}: wrong token`);
    t.equal(wrong.json().code, '1401');
    t.notMatch(wrong.body, WRONG, `${what}: the wrong token is not echoed`);
    t.notMatch(wrong.body, TOKEN, `${what}: nor the right one`);
    t.match(wrong.headers['www-authenticate'], /^Bearer realm="mock-server-admin"/);

    const right = await app.inject({ ...call, headers: bearer(TOKEN) });
    t.ok(right.statusCode < 300, `${what}: the right token passes (${right.statusCode} ${right.body})`);
  }
  // The check comes before the body is read: a bad body without the token is a 401, not a 400.
  t.equal((await app.inject({ method: 'POST', url: '/__admin/clock', payload: { nonsense: true } })).statusCode, 401);
  t.equal((await app.inject({ method: 'POST', url: '/__admin/clock', payload: { nonsense: true }, headers: bearer(TOKEN) })).statusCode, 400);
  // The scheme is case-insensitive (RFC 7235); anything but Bearer, a prefix of the token or a longer one is refused.
  t.equal((await app.inject({ url: '/__admin/orders', headers: { authorization: `bearer ${TOKEN}` } })).statusCode, 200);
  for (const authorization of [`Basic ${Buffer.from(`admin:${TOKEN}`).toString('base64')}`, TOKEN, `Bearer ${TOKEN.slice(0, -1)}`, `Bearer ${TOKEN}x`, 'Bearer', `Bearer ${TOKEN} extra`]) {
    t.equal((await app.inject({ url: '/__admin/orders', headers: { authorization } })).statusCode, 401, authorization);
  }
});

t.test('with a token: GET /__admin/health stays open, the partner API and /docs are unaffected', async (t) => {
  const app = await buildTestApp({ config: { adminToken: TOKEN } });
  t.teardown(() => app.close());
  const health = await app.inject({ url: '/__admin/health' });
  t.equal(health.statusCode, 200, 'health needs no token (container health checks)');
  t.match(health.json(), { status: 'ok', seed: 1 });
  t.equal((await app.inject({ url: '/__admin/health?x=1', headers: bearer(WRONG) })).statusCode, 200, 'not even a wrong one is refused');
  t.equal((await app.inject({ method: 'HEAD', url: '/__admin/health' })).statusCode, 200);
  t.equal((await app.inject({ url: '/api/v3/currencies', headers: H })).statusCode, 200, 'partner route without the admin token');
  t.equal((await app.inject({ url: '/api/v3/currencies' })).statusCode, 400, 'partner header rules as before');
  const login = await app.inject({ method: 'POST', url: '/api/v3/login', headers: H, payload: { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' } });
  t.equal(login.statusCode, 200, 'login as before');
  const cart = await app.inject({ method: 'POST', url: '/api/v3/carts', headers: { ...H, ...bearer(login.json().access_token as string) } });
  t.equal(cart.statusCode, 200, `a partner bearer token works as before (${cart.body})`);
  t.equal((await app.inject({ url: '/docs/json' })).statusCode, 200, '/docs is open');
});

t.test('without a token (the default) the control API is open', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  for (const call of CALLS) {
    const res = await app.inject(call);
    t.ok(res.statusCode < 300, `${call.method} ${call.url}: ${res.statusCode}`);
  }
  t.equal((await app.inject({ url: '/__admin/orders', headers: bearer(WRONG) })).statusCode, 200, 'an Authorization header is ignored');
});
