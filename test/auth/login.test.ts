import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildTestApp, H, APP } from '../helper.js';
import { createStore } from '../../src/store/index.js';
import { hashToken } from '../../src/auth/tokens.js';
import { FixtureError } from '../../src/auth/index.js';
import { tempDir } from '../tmp.js';

const SANDBOX = { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' };
const LOGIN = '/api/v3/login';

t.test('POST /login issues a bearer token with the client scopes', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'POST', url: LOGIN, headers: H, payload: SANDBOX });
  t.equal(res.statusCode, 200, res.body);
  const body = res.json();
  t.match(body, { access_token: /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/, expires_in: 3600, token_type: 'bearer' });
  t.equal(Buffer.from(body.access_token.split('.')[0], 'base64url').toString(), APP, 'the token names its application, where it is looked up');
  t.same(body.scope.split(' ').sort(), ['comment', 'no-payment', 'order-item-cancellation']);
  t.equal(res.headers['cache-control'], 'no-store');
  t.notOk(res.headers.deprecation, 'POST is not deprecated');
  const stored = app.store.tenant(APP).tokens[hashToken(body.access_token)];
  t.match(stored, { clientId: 'sandbox-client', issuedAt: '2026-01-15T10:00:00.000Z', expiresAt: '2026-01-15T11:00:00.000Z' });
  t.notOk(app.store.tenant(APP).tokens[body.access_token], 'the token itself is not stored, only its digest');
  const again = await app.inject({ method: 'POST', url: LOGIN, headers: H, payload: SANDBOX });
  t.not(again.json().access_token, body.access_token, 'every login gets a new token');

  const limited = await app.inject({
    method: 'POST', url: LOGIN, headers: H,
    payload: { client_id: 'limited-client', client_secret: 'limited-secret', grant_type: 'client_credentials' },
  });
  t.equal(limited.statusCode, 200);
  t.equal(limited.json().scope, 'comment', 'a fixture client gets only its scopes');
});

t.test('GET /login works with query parameters and is marked deprecated', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const qs = new URLSearchParams(SANDBOX).toString();
  const res = await app.inject({ method: 'GET', url: `${LOGIN}?${qs}`, headers: H });
  t.equal(res.statusCode, 200, res.body);
  t.equal(res.headers.deprecation, 'true');
  t.equal(res.json().token_type, 'bearer');
  const bad = await app.inject({ method: 'GET', url: `${LOGIN}?client_id=sandbox-client&grant_type=client_credentials`, headers: H });
  t.equal(bad.statusCode, 400);
  t.match(bad.json(), { code: '0', message: /querystring "client_secret" is required/ });
});

t.test('every login error is a 4xx {code, message}', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const cases: Array<[string, Record<string, unknown>, number, string, RegExp, Record<string, string>?]> = [
    ['missing client_id', { client_secret: 's', grant_type: 'client_credentials' }, 400, '0', /"client_id" is required/],
    ['missing client_secret', { client_id: 'sandbox-client', grant_type: 'client_credentials' }, 400, '0', /"client_secret" is required/],
    ['missing grant_type', { client_id: 'sandbox-client', client_secret: 'sandbox-secret' }, 400, '0', /"grant_type" is required/],
    ['empty client_id', { ...SANDBOX, client_id: '' }, 400, '0', /client_id/],
    ['wrong grant type', { ...SANDBOX, grant_type: 'password' }, 400, '0', /"grant_type" must be "client_credentials", got "password"/],
    ['unknown client', { ...SANDBOX, client_id: 'nobody' }, 401, '1401', /Unknown client_id "nobody"/],
    ['wrong secret', { ...SANDBOX, client_secret: 'nope' }, 401, '1401', /Wrong client_secret/],
    ['client not allowed for the application', { client_id: 'acme-client', client_secret: 'acme-secret', grant_type: 'client_credentials' }, 401, '1401', /may not be used with application "test-app"/],
    ['no application header', SANDBOX, 400, '2271', /x-service-application/, {}],
  ];
  for (const [name, payload, status, code, message, headers] of cases) {
    const res = await app.inject({ method: 'POST', url: LOGIN, headers: headers ?? H, payload });
    t.equal(res.statusCode, status, `${name}: status`);
    t.match(res.json(), { code, message }, `${name}: body`);
  }
  const notJson = await app.inject({ method: 'POST', url: LOGIN, headers: { ...H, 'content-type': 'application/json' }, payload: '{"client_id":' });
  t.equal(notJson.statusCode, 400, 'malformed JSON');
  const acme = await app.inject({
    method: 'POST', url: LOGIN, headers: { 'x-service-application': 'acme-web' },
    payload: { client_id: 'acme-client', client_secret: 'acme-secret', grant_type: 'client_credentials' },
  });
  t.equal(acme.statusCode, 200, 'a client restricted to some applications logs in with one of them');
  t.same(app.store.applications().sort(), ['acme-web'], 'failed logins wrote nothing');
});

t.test('tokens survive a restart on a file store', async (t) => {
  const file = join(tempDir(t, 'auth-'), 'state.json');
  const first = await buildTestApp({ store: await createStore(file) });
  const token = (await first.inject({ method: 'POST', url: LOGIN, headers: H, payload: SANDBOX })).json().access_token;
  await first.close();
  const second = await buildTestApp({ store: await createStore(file) });
  t.teardown(() => second.close());
  t.ok(second.store.tenant(APP).tokens[hashToken(token)], 'the token is in the reopened state');
  const uuid = '00000000-0000-4000-8000-000000000000';
  const res = await second.inject({ url: `/api/v3/activities/${uuid}/merchant-tags`, headers: { ...H, authorization: `Bearer ${token}` } });
  t.equal(res.statusCode, 404, 'accepted after the restart (then 404: no such activity)');
});

t.test('clients.json from a fixture directory is validated at start', async (t) => {
  const dir = tempDir(t, 'fixtures-');
  const file = join(dir, 'clients.json');
  const bad: Array<[unknown, RegExp]> = [
    [{}, /"clients" must be an array/],
    [{ clients: [{ client_secret: 's', scopes: [] }] }, /clients\[0\]\.client_id/],
    [{ clients: [{ client_id: 'a', scopes: [] }] }, /clients\[0\]\.client_secret/],
    [{ clients: [{ client_id: 'a', client_secret: 's', scopes: ['payment'] }] }, /clients\[0\]\.scopes\[0\] must be one of/],
    [{ clients: [{ client_id: 'a', client_secret: 's' }] }, /clients\[0\]\.scopes must be an array/],
    [{ clients: [{ client_id: 'a', client_secret: 's', scopes: [], applications: [] }] }, /clients\[0\]\.applications/],
    [{ clients: [{ client_id: 'a', client_secret: 's', scopes: [] }, { client_id: 'a', client_secret: 's', scopes: [] }] }, /clients\[1\]\.client_id "a" appears twice/],
    [[1], /"clients" must be an array/],
    [{ clients: [null] }, /clients\[0\] must be an object/],
  ];
  for (const [doc, message] of bad) {
    writeFileSync(file, JSON.stringify(doc));
    const err = await buildTestApp({ config: { fixtures: dir } }).catch((e: unknown) => e);
    t.type(err, FixtureError, JSON.stringify(doc));
    t.match((err as FixtureError).message, message);
    t.match((err as FixtureError).message, file, 'names the file');
    t.equal((err as FixtureError).userFacing, true);
  }
  writeFileSync(file, '{nope');
  t.match(await buildTestApp({ config: { fixtures: dir } }).catch((e: unknown) => e), { message: /not valid JSON/, userFacing: true });

  writeFileSync(file, JSON.stringify({ clients: [{ client_id: 'mine', client_secret: 'pw', scopes: ['no-payment'], applications: [APP] }] }));
  const app = await buildTestApp({ config: { fixtures: dir } });
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'POST', url: LOGIN, headers: H, payload: { client_id: 'mine', client_secret: 'pw', grant_type: 'client_credentials' } });
  t.equal(res.json().scope, 'no-payment', 'a user client logs in');
  const builtin = await app.inject({ method: 'POST', url: LOGIN, headers: H, payload: { client_id: 'limited-client', client_secret: 'limited-secret', grant_type: 'client_credentials' } });
  t.equal(builtin.statusCode, 200, 'built-in fixture clients stay');
});

t.test('POST /refresh: a token this application holds gets a fresh one, also a day after it expired', async (t) => {
  const clock = (await import('../../src/clock.js')).fixedClock();
  const app = await buildTestApp({ clock });
  t.teardown(() => app.close());
  const REFRESH = '/api/v3/refresh';
  const token = (await app.inject({ method: 'POST', url: LOGIN, headers: H, payload: SANDBOX })).json().access_token as string;
  clock.advance(2 * 3600 * 1000);
  const res = await app.inject({ method: 'POST', url: `${REFRESH}?grant_type=refresh_token&refresh_token=${token}`, headers: H });
  t.equal(res.statusCode, 200, res.body);
  const fresh = res.json();
  t.match(fresh, { access_token: String, refresh_token: fresh.access_token, expires_in: 3600, token_type: 'bearer' });
  t.not(fresh.access_token, token);
  t.match(app.store.tenant(APP).tokens[hashToken(fresh.access_token)], { clientId: 'sandbox-client', expiresAt: '2026-01-15T13:00:00.000Z' });
  const inBody = await app.inject({ method: 'POST', url: REFRESH, headers: H, payload: { grant_type: 'refresh_token', refresh_token: fresh.access_token } });
  t.equal(inBody.statusCode, 200, 'the fields may come in a JSON body too');
  const viaCredentials = await app.inject({ method: 'POST', url: REFRESH, headers: H, payload: SANDBOX });
  t.equal(viaCredentials.statusCode, 200, 'grant_type client_credentials works as POST /login');

  const refused = async (url: string, payload: object | undefined, status: number, message: RegExp, headers: Record<string, string> = H) => {
    const r = await app.inject({ method: 'POST', url, headers, ...(payload ? { payload } : {}) });
    t.equal(r.statusCode, status, r.body);
    t.match(r.json(), { message });
  };
  await refused(`${REFRESH}?grant_type=refresh_token&refresh_token=nope`, undefined, 401, /Unknown refresh_token/);
  await refused(`${REFRESH}?grant_type=refresh_token&refresh_token=${token}`, undefined, 401, /Unknown refresh_token for application "other"/, { 'x-service-application': 'other' });
  await refused(`${REFRESH}?grant_type=refresh_token&refresh_token=${token}&client_id=someone-else`, undefined, 401, /not issued to this client_id/);
  await refused(`${REFRESH}?grant_type=refresh_token`, undefined, 400, /"refresh_token" is required/);
  await refused(`${REFRESH}?grant_type=password`, undefined, 400, /must be "refresh_token" or "client_credentials", got "password"/);
  await refused(REFRESH, undefined, 400, /got none/);
});
