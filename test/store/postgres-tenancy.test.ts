// A sandbox shared by many partners, on PostgreSQL: per-application clocks, partner registration,
// control scoped to a partner's token, faults per application (armed on one instance, used on both)
// and the receiver guard hold across two instances on one database, as on the file store (test/admin/app-clock, partner-token,
// test/auth/registration, test/http/faults, test/webhooks/guard test them there).
import t, { type Test } from 'tap';
import type { FastifyInstance } from 'fastify';
import { systemClock } from '../../src/clock.js';
import { createStore } from '../../src/store/index.js';
import { buildTestApp } from '../helper.js';
import { startPostgres } from '../pg/server.js';

const server = await startPostgres(t);
let n = 0;
const ADMIN = 'adm1n';
const admin = { authorization: `Bearer ${ADMIN}` };

/** Two shared-sandbox instances on one fresh database, on real time (the server clock is shared through the database). */
async function two(t: Test): Promise<[FastifyInstance, FastifyInstance]> {
  const url = await server.createDatabase(`tenancy_${++n}`);
  const apps: FastifyInstance[] = [];
  for (let i = 0; i < 2; i++) {
    const app = await buildTestApp({ store: await createStore(url), clock: systemClock(), config: { shared: true, adminToken: ADMIN } });
    t.teardown(() => app.close());
    apps.push(app);
  }
  return apps as [FastifyInstance, FastifyInstance];
}

async function register(app: FastifyInstance, applications: string[]) {
  return (await app.inject({ method: 'POST', url: '/__admin/clients', headers: admin, payload: { applications, scopes: [] } })).json() as { client_id: string; client_secret: string };
}
const login = (app: FastifyInstance, application: string, c: { client_id: string; client_secret: string }) =>
  app.inject({ method: 'POST', url: '/api/v3/login', headers: { 'x-service-application': application }, payload: { ...c, grant_type: 'client_credentials' } });

t.test('a client registered on one instance logs in on the other, for its applications only; revoked on one, refused on the other', async (t) => {
  const [a, b] = await two(t);
  const client = await register(a, ['team-a']);
  const ok = await login(b, 'team-a', client);
  t.equal(ok.statusCode, 200, 'registered on A, logs in on B');
  t.equal((await login(b, 'team-b', client)).statusCode, 401, 'not for another application');
  t.equal((await login(b, 'team-a', { client_id: 'sandbox-client', client_secret: 'sandbox-secret' })).statusCode, 401, 'no sandbox-client on a shared sandbox');
  const token = ok.json().access_token as string;
  t.equal((await a.inject({ method: 'DELETE', url: `/__admin/clients/${client.client_id}`, headers: admin })).statusCode, 204);
  t.equal((await login(b, 'team-a', client)).statusCode, 401, 'revoked on A: refused on B');
  t.equal((await b.inject({ url: '/api/v3/currencies', headers: { 'x-service-application': 'team-a', authorization: `Bearer ${token}` } })).statusCode, 401, 'and its token stops working on B');
});

t.test("an application's clock moved on one instance expires its tokens on the other, and no one else's", async (t) => {
  const [a, b] = await two(t);
  const client = await register(a, ['team-a', 'team-b']);
  const ta = (await login(a, 'team-a', client)).json().access_token as string;
  const tb = (await login(a, 'team-b', client)).json().access_token as string;
  await a.inject({ method: 'POST', url: '/__admin/clock', headers: admin, payload: { application: 'team-a', advance: 'PT2H' } });
  const use = (application: string, token: string) => b.inject({ url: '/api/v3/currencies', headers: { 'x-service-application': application, authorization: `Bearer ${token}` } });
  t.equal((await use('team-a', ta)).statusCode, 401, "A's token expired on A's clock, seen on B");
  t.equal((await use('team-b', tb)).statusCode, 200, "B's did not");
  t.match((await b.inject({ url: '/__admin/clock?application=team-a', headers: admin })).json(), { application_offset_ms: 7_200_000 }, "B reads A's own offset");
});

t.test("a partner token cannot read, move, reset or report another application, or do anything server-wide, on any instance", async (t) => {
  const [a, b] = await two(t);
  const client = await register(a, ['team-a', 'team-b']);
  const ta = (await login(a, 'team-a', client)).json().access_token as string;
  await login(a, 'team-b', client);
  const partner = (app: FastifyInstance, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
    app.inject({ method, url: `/__admin${url}`, headers: { authorization: `Bearer ${ta}` }, ...(payload ? { payload } : {}) });
  t.equal((await partner(b, 'GET', '/orders')).statusCode, 200, "A's token, issued on instance A, opens B's control API for its application");
  for (const [method, url, payload] of [
    ['GET', '/orders?application=team-b'],
    ['GET', '/report?application=team-b'],
    ['POST', '/reset', { application: 'team-b' }],
    ['POST', '/clock', { application: 'team-b', advance: 'PT1H' }],
  ] as const) t.equal((await partner(b, method, url, payload)).statusCode, 404, `${method} ${url}: 404`);
  for (const [method, url, payload] of [
    ['POST', '/clients', { applications: ['team-a'], scopes: [] }],
    ['GET', '/clients'],
  ] as const) t.equal((await partner(b, method, url, payload)).statusCode, 403, `${method} ${url}: 403`);
  t.equal((await partner(b, 'PUT', '/webhooks/config', { url: 'http://169.254.169.254/latest/meta-data/' })).statusCode, 400, 'no receiver at the metadata address');
  t.equal((await partner(b, 'POST', '/webhooks/check', { url: 'http://127.0.0.1:9/' })).statusCode, 400, 'no check of a loopback address');
});

t.test('a fault armed on one instance answers on the other, each use counted once across both; a fault for A never answers B', async (t) => {
  const [a, b] = await two(t);
  // With a token acting for the application (here the operator's): a shared sandbox's faults answer no one else.
  const get = (app: FastifyInstance, application: string) => app.inject({ url: '/api/v3/currencies', headers: { 'x-service-application': application, ...admin } });
  /** Waits until `app` sees what the other instance armed (a catalog read does not read the state: the notification brings it). */
  const seen = async (app: FastifyInstance, count: number) => {
    for (let i = 0; i < 200 && (await app.inject({ url: '/__admin/faults', headers: admin })).json().faults.length !== count; i++) await new Promise((r) => setTimeout(r, 10));
  };
  const arm = (app: FastifyInstance, payload: object) => app.inject({ method: 'POST', url: '/__admin/faults', headers: admin, payload: { method: 'GET', path: '/currencies', status: 503, ...payload } });
  t.equal((await arm(a, { application: 'team-a', times: 6 })).statusCode, 201);
  await seen(b, 1);
  t.equal((await get(b, 'team-b')).statusCode, 200, "B's requests are not answered by A's fault, on either instance");
  t.equal((await get(a, 'team-b')).statusCode, 200);
  // Six uses, asked for twelve times at once on both instances: six 503s, whichever instance answers.
  const statuses = await Promise.all(Array.from({ length: 12 }, (_, i) => get(i % 2 ? a : b, 'team-a').then((r) => r.statusCode)));
  t.same([statuses.filter((s) => s === 503).length, statuses.filter((s) => s === 200).length], [6, 6], `six uses across both instances (${statuses.join(' ')})`);
  t.same((await a.inject({ url: '/__admin/faults', headers: admin })).json().faults, [], 'used up, on the instance that armed it');

  const server = await arm(b, { status: 502, times: 2 });
  t.equal(server.statusCode, 201);
  t.ok(server.json().id > 1, 'ids go on across the instances');
  await seen(a, 1);
  t.equal((await get(a, 'team-c')).statusCode, 502, 'a server-wide fault armed on B answers on A');
  t.equal((await get(b, 'team-c')).statusCode, 502, 'and on B');
  t.equal((await get(a, 'team-c')).statusCode, 200, 'twice in all');

  await arm(a, { application: 'team-a', times: 100 });
  await seen(b, 1);
  t.equal((await get(b, 'team-a')).statusCode, 503);
  t.equal((await a.inject({ method: 'DELETE', url: '/__admin/faults?application=team-a', headers: admin })).statusCode, 204);
  await seen(b, 0);
  t.equal((await get(b, 'team-a')).statusCode, 200, 'disarmed on A: gone on B');
});
