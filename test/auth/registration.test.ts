// Partner registration (a shared sandbox): POST /__admin/clients gives a client_id and secret that log
// in for the listed applications only; the store keeps only the secret's digest; DELETE revokes the
// client and its tokens; --shared turns the built-in sandbox-client off.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildTestApp } from '../helper.js';
import { createStore } from '../../src/store/index.js';
import { loadConfig } from '../../src/config.js';
import { tempDir } from '../tmp.js';
import { run } from '../cli-process.js';

const ADMIN = { authorization: 'Bearer adm1n' };
const login = (app: Awaited<ReturnType<typeof buildTestApp>>, application: string, client_id: string, client_secret: string) =>
  app.inject({ method: 'POST', url: '/api/v3/login', headers: { 'x-service-application': application }, payload: { client_id, client_secret, grant_type: 'client_credentials' } });

t.test('a registered client logs in for its applications only, and a revoked one cannot', async (t) => {
  const file = join(tempDir(t), 'state.json');
  const app = await buildTestApp({ config: { adminToken: 'adm1n', shared: true }, store: await createStore(file) });
  t.teardown(() => app.close());

  const created = await app.inject({ method: 'POST', url: '/__admin/clients', headers: ADMIN, payload: { applications: ['shop-a', 'shop-b'], scopes: ['order-item-cancellation'], name: 'Acme Travel' } });
  t.equal(created.statusCode, 201, created.body);
  const { client_id, client_secret } = created.json();
  t.match(created.json(), { client_id: /^cl_/, client_secret: /^cs_[A-Za-z0-9_-]{43}$/, name: 'Acme Travel', applications: ['shop-a', 'shop-b'], scopes: ['order-item-cancellation'], created_at: '2026-01-15T10:00:00.000Z' });
  t.equal(created.headers['cache-control'], 'no-store');

  const ok = await login(app, 'shop-a', client_id, client_secret);
  t.equal(ok.statusCode, 200, 'logs in for a listed application');
  t.equal(ok.json().scope, 'order-item-cancellation', 'with the scopes it was given');
  t.equal((await login(app, 'shop-b', client_id, client_secret)).statusCode, 200);
  const other = await login(app, 'shop-c', client_id, client_secret);
  t.equal(other.statusCode, 401, 'not for another application');
  t.match(other.json(), { code: '1401', message: /may not be used with application "shop-c"/ });
  t.equal((await login(app, 'shop-a', client_id, 'cs_wrong')).statusCode, 401, 'a wrong secret is refused');

  const listed = await app.inject({ url: '/__admin/clients', headers: ADMIN });
  t.same(listed.json(), { clients: [{ client_id, name: 'Acme Travel', applications: ['shop-a', 'shop-b'], scopes: ['order-item-cancellation'], created_at: '2026-01-15T10:00:00.000Z' }] }, 'listed without the secret');
  await app.store.flush();
  const onDisk = readFileSync(file, 'utf8') + readFileSync(`${file}.wal`, 'utf8');
  t.notOk(onDisk.includes(client_secret), 'the secret is not in the state');
  t.ok(onDisk.includes(client_id), 'the client is');

  // A token it was given works until the client is revoked.
  const token = ok.json().access_token as string;
  const orders = () => app.inject({ url: '/api/v3/currencies', headers: { 'x-service-application': 'shop-a', authorization: `Bearer ${token}` } });
  t.equal((await orders()).statusCode, 200, 'its token works');
  t.equal((await app.inject({ method: 'DELETE', url: `/__admin/clients/${client_id}`, headers: ADMIN })).statusCode, 204);
  t.equal((await login(app, 'shop-a', client_id, client_secret)).statusCode, 401, 'a revoked client cannot log in');
  t.equal((await orders()).statusCode, 401, 'and its tokens stop working');
  t.same((await app.inject({ url: '/__admin/clients', headers: ADMIN })).json(), { clients: [] });
  const again = await app.inject({ method: 'DELETE', url: `/__admin/clients/${client_id}`, headers: ADMIN });
  t.equal(again.statusCode, 404);
  t.same(Object.keys(again.json()).sort(), ['code', 'message']);
  t.equal((await app.inject({ method: 'DELETE', url: '/__admin/clients/constructor', headers: ADMIN })).statusCode, 404, 'an id that names a property of every object is just unknown');
  t.equal((await login(app, 'shop-a', '__proto__', 'x')).statusCode, 401);
});

t.test('registered clients survive a restart', async (t) => {
  const file = join(tempDir(t), 'state.json');
  const first = await buildTestApp({ store: await createStore(file) });
  const { client_id, client_secret } = (await first.inject({ method: 'POST', url: '/__admin/clients', payload: { applications: ['shop'], scopes: [] } })).json();
  await first.close();
  const second = await buildTestApp({ store: await createStore(file) });
  t.teardown(() => second.close());
  const res = await login(second, 'shop', client_id, client_secret);
  t.equal(res.statusCode, 200, res.body);
  t.equal(res.json().scope, null, 'no scopes: none granted');
});

t.test('--shared turns the sandbox-client off; without it the sandbox-client logs in for any application', async (t) => {
  const open = await buildTestApp();
  t.teardown(() => open.close());
  t.equal((await login(open, 'anything', 'sandbox-client', 'sandbox-secret')).statusCode, 200);
  const shared = await buildTestApp({ config: { adminToken: 'adm1n', shared: true } });
  t.teardown(() => shared.close());
  const refused = await login(shared, 'anything', 'sandbox-client', 'sandbox-secret');
  t.equal(refused.statusCode, 401);
  t.match(refused.json().message, /shared.*registered/);
  t.equal((await login(shared, 'anything', 'limited-client', 'limited-secret')).statusCode, 401, 'nor the built-in fixture clients (test/auth/shared.test.ts has the rest)');
});

t.test('POST /__admin/clients refuses bad input with 400 {code, message}', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  for (const payload of [{}, { applications: [], scopes: [] }, { applications: ['a'], scopes: ['admin'] }, { applications: ['a'], scopes: [], extra: 1 }, { applications: [''], scopes: [] }]) {
    const res = await app.inject({ method: 'POST', url: '/__admin/clients', payload });
    t.equal(res.statusCode, 400, JSON.stringify(payload));
    t.same(Object.keys(res.json()).sort(), ['code', 'message']);
  }
  for (const [applications, why] of [
    ['*', /must be an array of application names, e.g. \["acme-shop"\], got "\*"/],
    ['acme-shop', /must be an array of application names/],
    [{ '*': true }, /must be an array of application names/],
    [['acme-shop', '*'], /"\*" is no wildcard here/],
  ] as const) {
    const res = await app.inject({ method: 'POST', url: '/__admin/clients', payload: { applications, scopes: [] } });
    t.equal(res.statusCode, 400, `applications ${JSON.stringify(applications)}: 400, not a wildcard stored as ["*"]`);
    t.match(res.json().message, why);
  }
  t.same((await app.inject({ url: '/__admin/clients' })).json(), { clients: [] }, 'nothing was registered');
});

t.test('--shared needs --admin-token; the banner says which mode is on', async (t) => {
  t.throws(() => loadConfig(['--shared'], {}), /shared sandbox needs --admin-token/);
  t.equal(loadConfig(['--shared', '--admin-token', 'x'], {}).config.shared, true);
  t.equal(loadConfig([], { MOCK_SERVER_SHARED: 'true', MOCK_SERVER_ADMIN_TOKEN: 'x' }).config.shared, true);
  t.throws(() => loadConfig([], { MOCK_SERVER_SHARED: 'maybe' }), /MOCK_SERVER_SHARED: expected true or false/);
  const r = await run(['--shared', '--port', '0']);
  t.equal(r.code, 2);
  t.match(r.stderr, /^mock-server: shared: a shared sandbox needs --admin-token.*\n$/);
});
