// A shared sandbox's request rate per application (--shared --rate-limit): past the limit an
// application gets 429 {code, message} with Retry-After; other applications are not affected.
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { Pool } from 'undici';
import { buildTestApp } from '../helper.js';
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

t.test('past its state size an application cannot add state (429 with Retry-After); reads, login and a reset go on', async (t) => {
  const clock = fixedClock();
  const app = await buildTestApp({ clock, config: { shared: true, adminToken: 'x', rateLimit: 0, stateLimit: 3 } });
  t.teardown(() => app.close());
  // The operator's token: a partner's login would be one of the records counted.
  const post = (application: string, url: string, payload?: object) => app.inject({ method: 'POST', url: `/api/v3${url}`, headers: { 'x-service-application': application, ...(url === '/login' ? {} : { authorization: 'Bearer x' }) }, ...(payload ? { payload } : {}) });
  for (let i = 0; i < 3; i++) t.equal((await post('full', '/carts')).statusCode, 200);
  // The count is trusted for a second of the server clock: let it pass, as for a client writing for a while.
  clock.advance(1000);
  const refused = await post('full', '/carts');
  t.equal(refused.statusCode, 429);
  t.same(Object.keys(refused.json()).sort(), ['code', 'message']);
  t.match(refused.json().message, /Application "full" keeps 3 records .*at most 3 per application: POST \/__admin\/reset/);
  t.equal(refused.headers['retry-after'], '3600');
  t.equal((await post('other', '/carts')).statusCode, 200, 'another application is not affected');
  t.equal((await app.inject({ url: '/api/v3/currencies', headers: { 'x-service-application': 'full' } })).statusCode, 200, 'reads go on');
  const reg = (await app.inject({ method: 'POST', url: '/__admin/clients', headers: { authorization: 'Bearer x' }, payload: { applications: ['full'], scopes: [] } })).json();
  t.equal((await post('full', '/login', { client_id: reg.client_id, client_secret: reg.client_secret, grant_type: 'client_credentials' })).statusCode, 200, 'a login goes on, so that the partner can reset');
  await app.inject({ method: 'POST', url: '/__admin/reset', headers: { authorization: 'Bearer x' }, payload: { application: 'full' } });
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
      const get = (application: string) =>
        pool.request({ path: '/api/v3/activities?limit=20', method: 'GET', headers: { 'x-service-application': application } }).then(async (r) => {
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
