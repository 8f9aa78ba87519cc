import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, H } from '../helper.js';
import { bookOrder, CONFIRM, overInject } from '../book-order.js';

const INSTANT = '4e451a8a-2ee5-493f-aa12-a39f13d7253e';

/** Books and pays one ticket of `activity` for `application`; answers the order and its item uuid. */
async function bookAndPay(app: FastifyInstance, application: string, activity: string) {
  const order = await bookOrder(overInject(app, application), activity);
  return { order: order.uuid, item: order.items[0]!.uuid };
}

t.test('journal: /docs is left out; with --base-path / the control API and docs still are', async (t) => {
  for (const basePath of ['/api/v3', '/']) {
    const app = await buildTestApp({ config: { basePath } });
    t.teardown(() => app.close());
    const api = basePath === '/' ? '' : basePath;
    await app.inject({ url: `${api}/currencies`, headers: H });
    await app.inject({ url: '/docs/json' });
    await app.inject({ url: '/__admin/health' });
    await app.inject({ url: '/__admin/faults' });
    t.same((await app.inject({ url: '/__admin/requests' })).json().requests.map((r: { path: string }) => r.path), [`${api}/currencies`], basePath);
  }
  const app = await buildTestApp();
  t.teardown(() => app.close());
  await app.inject({ url: '/api/v3x/currencies', headers: H });
  t.same((await app.inject({ url: '/__admin/requests' })).json().requests, [], '/api/v3x is not under /api/v3');
  t.equal((await app.inject({ url: '/__admin/requests?limit=0' })).statusCode, 400, 'limit below 1');
  t.match((await app.inject({ url: '/__admin/requests?limit=1001' })).json(), { code: '0', message: /limit/ }, 'limit above 1,000');
});

t.test('faults: method, wildcard in the middle, journal sees the fault, base path /', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const get = (url: string, method: 'GET' | 'POST' = 'GET') => app.inject({ method, url, headers: H });
  const arm = (body: object) => app.inject({ method: 'POST', url: '/__admin/faults', payload: body });

  t.match((await arm({ method: 'post', path: '/carts', status: 500 })).json(), { id: 1, method: 'POST', path: '/carts', status: 500, times: 1, delay_ms: 0 }, 'method upper-cased, defaults filled');
  t.equal((await get('/api/v3/carts/00000000-0000-4000-8000-000000000000')).statusCode, 404, 'GET does not match a POST fault');
  t.same((await app.inject({ url: '/__admin/faults' })).json().faults.map((f: { times: number }) => f.times), [1], 'still armed');
  const post = await get('/api/v3/carts', 'POST');
  t.same([post.statusCode, post.json().code], [500, '500']);
  t.same((await app.inject({ url: '/__admin/faults' })).json().faults, [], 'used up');

  await arm({ method: '*', path: '/activities/*/dates', status: 418, times: 3 });
  t.equal((await get(`/api/v3/activities/${INSTANT}/dates?date_from=2026-01-20&date_to=2026-01-21`)).statusCode, 418, 'query string ignored');
  t.equal((await get(`/api/v3/activities/${INSTANT}/dates/`)).statusCode, 418, 'trailing slash ignored');
  t.equal((await get(`/api/v3/activities/${INSTANT}`)).statusCode, 200, 'pattern is anchored at the end');
  t.same((await app.inject({ url: '/__admin/faults' })).json().faults.map((f: { times: number }) => f.times), [1]);
  const journal = (await app.inject({ url: '/__admin/requests?limit=2' })).json().requests;
  t.same(journal.map((r: { status: number }) => r.status), [200, 418], 'the journal records the fault answer');
  await app.inject({ method: 'DELETE', url: '/__admin/faults' });

  const first = await arm({ method: 'GET', path: '/currencies', status: 503 });
  const second = await arm({ method: 'GET', path: '/currencies', status: 504 });
  t.ok(second.json().id > first.json().id);
  t.equal((await get('/api/v3/currencies')).statusCode, 503, 'the first armed fault wins');
  t.equal((await get('/api/v3/currencies')).statusCode, 504);

  for (const bad of [{ method: 'GET', path: '', status: 500 }, { method: 'GET', path: '/x', status: 600 }, { method: 'GET', path: '/x', status: 500, times: 0 }, { method: 'GET', path: '/x', status: 500, delay_ms: -1 }]) {
    const res = await arm(bad);
    t.same([res.statusCode, typeof res.json().code, typeof res.json().message], [400, 'string', 'string'], JSON.stringify(bad));
  }

  const root = await buildTestApp({ config: { basePath: '/' } });
  t.teardown(() => root.close());
  await root.inject({ method: 'POST', url: '/__admin/faults', payload: { method: 'GET', path: '/currencies', status: 502 } });
  t.equal((await root.inject({ url: '/currencies', headers: H })).statusCode, 502, 'base path /');
  t.equal((await root.inject({ url: '/__admin/health' })).statusCode, 200, 'the control API is never faulted');
});

t.test('Prefer: code and delay together, errors are {code, message}, header rules first', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const t0 = Date.now();
  const both = await app.inject({ url: '/api/v3/currencies', headers: { ...H, prefer: 'code=429, delay=40' } });
  t.equal(both.statusCode, 429);
  t.ok(Date.now() - t0 >= 35, 'delayed too');
  const bad = await app.inject({ url: '/api/v3/currencies', headers: { ...H, prefer: 'code=5xx' } });
  t.same([bad.statusCode, bad.json()], [400, { code: '0', message: 'Prefer: code must be an HTTP status 400..599, got "5xx"' }]);
  const noApp = await app.inject({ url: '/api/v3/currencies', headers: { prefer: 'code=503' } });
  t.same([noApp.statusCode, noApp.json().code], [400, '2271'], 'a missing application header is not hidden');
  t.equal((await app.inject({ url: '/__admin/health', headers: { prefer: 'code=503' } })).statusCode, 200, 'the control API ignores Prefer');
});

t.test('status moves: versions, application filter, body errors, final statuses', async (t) => {
  const app = await buildTestApp({ config: { webhookUrl: 'http://127.0.0.1:9/hook' } });
  t.teardown(() => app.close());
  const { order, item } = await bookAndPay(app, 'shop', CONFIRM);
  const other = await bookAndPay(app, 'elsewhere', INSTANT);
  const listed = () => (app.inject({ url: '/__admin/orders' }).then((r) => r.json().orders as { uuid: string; application: string; version: number; items: { uuid: string; status: string; version: number }[] }[]));
  const before = (await listed()).find((o) => o.uuid === order)!;
  t.same((await listed()).map((o) => o.application).sort(), ['elsewhere', 'shop'], 'every application without ?application=');
  t.match((await listed()).find((o) => o.uuid === other.order), { items: [{ uuid: other.item, status: 'OK' }] }, 'instant confirmation is OK after payment');

  const move = (uuid: string, payload: object, query = '') => app.inject({ method: 'POST', url: `/__admin/order-items/${uuid}/status${query}`, payload });
  t.equal((await move(item, { status: 'OK' }, '?application=elsewhere')).statusCode, 404, 'not in that application');
  const missing = await move(item, {});
  t.same([missing.statusCode, typeof missing.json().code, typeof missing.json().message], [400, 'string', 'string'], 'status required');
  t.match((await move(item, { status: 'ok' })).json(), { code: '0', message: /must be one of PENDING/ }, 'statuses are case-sensitive');
  const unknown = await move('00000000-0000-4000-8000-000000000000', { status: 'OK' });
  t.same([unknown.statusCode, unknown.json().code], [404, '1400']);

  const ok = await move(item, { status: 'OK' }, '?application=shop');
  t.match(ok.json(), { order_uuid: order, uuid: item, status: 'OK', version: before.items[0]!.version + 1, updated_at: '2026-01-15T10:00:00.000Z' });
  const after = (await listed()).find((o) => o.uuid === order)!;
  t.equal(after.version, before.version + 1, 'the order version goes up too');
  t.match(app.webhooks.list({ order_item_uuid: item }), [{ payload: { order_item_status: 'OK', order_item_version: String(before.items[0]!.version + 1) } }]);

  t.equal((await move(item, { status: 'REFUND_STARTED' })).statusCode, 200);
  t.equal((await move(item, { status: 'REFUNDED' })).statusCode, 200);
  const final = await move(item, { status: 'OK' });
  t.same([final.statusCode, final.json().code], [409, '0'], 'REFUNDED is final');
  t.same(app.webhooks.list({ order_item_uuid: item }).map((d) => d.payload.order_item_status), ['OK', 'REFUND_STARTED', 'REFUNDED'], 'one webhook per move, none for the refused one');
  t.same(app.webhooks.list({ order_item_uuid: other.item }).map((d) => d.payload.order_item_status), ['OK'], 'the other application: only its payment move');
});

t.test('POST /__admin/reset clears the journal (per application) and, when it resets everything, the faults', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  for (const application of ['a', 'b']) await app.inject({ url: '/api/v3/currencies', headers: { 'x-service-application': application } });
  await app.inject({ method: 'POST', url: '/__admin/faults', payload: { method: 'GET', path: '/currencies', status: 500, times: 9 } });
  t.equal((await app.inject({ method: 'POST', url: '/__admin/reset', payload: { application: 'a' } })).statusCode, 200);
  t.same((await app.inject({ url: '/__admin/requests' })).json().requests.map((r: { application: string }) => r.application), ['b']);
  t.equal((await app.inject({ url: '/__admin/faults' })).json().faults.length, 1, 'a one-tenant reset leaves the faults');
  t.equal((await app.inject({ method: 'POST', url: '/__admin/reset' })).statusCode, 200);
  t.same((await app.inject({ url: '/__admin/requests' })).json().requests, []);
  t.same((await app.inject({ url: '/__admin/faults' })).json().faults, []);
  t.equal((await app.inject({ url: '/api/v3/currencies', headers: H })).statusCode, 200);
});
