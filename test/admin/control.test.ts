import t from 'tap';
import { buildTestApp, H } from '../helper.js';
import { bookOrder, overInject } from '../book-order.js';

t.test('request journal', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  await app.inject({ url: '/api/v3/currencies', headers: { 'x-service-application': 'a' } });
  await app.inject({ url: '/api/v3/activities/nope', headers: { 'x-service-application': 'b' } });
  await app.inject({ url: '/api/v3/currencies' });
  await app.inject({ url: '/__admin/health' });
  const all = (await app.inject({ url: '/__admin/requests' })).json().requests;
  t.same(all.map((r: { path: string; status: number; application: string | null }) => [r.path, r.status, r.application]), [
    ['/api/v3/currencies', 400, null],
    ['/api/v3/activities/nope', 400, 'b'],
    ['/api/v3/currencies', 200, 'a'],
  ], 'newest first, admin calls left out');
  t.match(all[2], { method: 'GET', duration_ms: Number, at: String });
  t.equal((await app.inject({ url: '/__admin/requests?application=a' })).json().requests.length, 1);
  t.equal((await app.inject({ url: '/__admin/requests?limit=1' })).json().requests.length, 1);
  t.equal((await app.inject({ method: 'DELETE', url: '/__admin/requests?application=a' })).statusCode, 204);
  t.equal((await app.inject({ url: '/__admin/requests' })).json().requests.length, 2);
  await app.inject({ method: 'DELETE', url: '/__admin/requests' });
  t.same((await app.inject({ url: '/__admin/requests' })).json().requests, []);
  for (let i = 0; i < 1005; i++) await app.inject({ url: `/api/v3/currencies?i=${i}`, headers: { 'x-service-application': 'busy' } });
  const kept = (await app.inject({ url: '/__admin/requests?limit=1000' })).json().requests;
  t.equal(kept.length, 1000, 'the last 1,000 per application are kept');
  t.equal(kept[0].path, '/api/v3/currencies?i=1004');
  t.equal(kept[999].path, '/api/v3/currencies?i=5');
});

t.test('the journal keeps the most recently active applications only', async (t) => {
  const { KEEP_APPLICATIONS } = await import('../../src/admin/journal.js');
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const get = (application: string) => app.inject({ url: '/api/v3/currencies', headers: { 'x-service-application': application } });
  await get('early');
  await get('regular');
  for (let i = 0; i < KEEP_APPLICATIONS - 2; i++) await get(`name-${i}`);
  await get('regular');
  // One more name than fits: the least recently active application goes, the one seen again stays.
  await get('newcomer');
  const apps = new Set((await app.inject({ url: '/__admin/requests?limit=1000' })).json().requests.map((r: { application: string }) => r.application));
  t.equal(apps.size, KEEP_APPLICATIONS);
  t.notOk(apps.has('early'), 'the least recently active was dropped');
  t.ok(apps.has('regular') && apps.has('newcomer') && apps.has('name-0'));
  for (let i = 0; i < 2 * KEEP_APPLICATIONS; i++) await get(`flood-${i}`);
  t.equal((await app.inject({ url: '/__admin/requests?limit=1000' })).json().requests.length, KEEP_APPLICATIONS, 'however many names arrive');
});

t.test('faults and the Prefer header', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const get = (url: string, headers: Record<string, string> = {}) => app.inject({ url, headers: { ...H, ...headers } });
  const arm = (body: object) => app.inject({ method: 'POST', url: '/__admin/faults', payload: body });
  t.equal((await arm({ method: 'GET', path: '/activities/*', status: 503, times: 2 })).statusCode, 201);
  const first = await get('/api/v3/activities/4e451a8a-2ee5-493f-aa12-a39f13d7253e');
  t.same([first.statusCode, first.json().code], [503, '503']);
  t.match(first.json().message, /Fault 1/);
  t.equal((await get('/api/v3/currencies')).statusCode, 200, 'another path is not affected');
  t.equal((await app.inject({ url: '/api/v3/activities/x' })).json().code, '2271', 'the header rule still comes first');
  t.equal((await get('/api/v3/activities?limit=1')).statusCode, 200, '* needs the slash: /activities is another path');
  t.equal((await get('/api/v3/activities/4e451a8a-2ee5-493f-aa12-a39f13d7253e')).statusCode, 503, 'second and last time');
  t.equal((await get('/api/v3/activities/4e451a8a-2ee5-493f-aa12-a39f13d7253e')).statusCode, 200);
  await arm({ method: '*', path: '/api/v3/currencies', status: 429, delay_ms: 50 });
  const t0 = Date.now();
  t.equal((await get('/api/v3/currencies')).statusCode, 429, 'a full path matches too');
  t.ok(Date.now() - t0 >= 45, 'after the delay');
  await arm({ method: 'GET', path: '/currencies', status: 500, times: 5 });
  t.equal((await app.inject({ url: '/__admin/faults' })).json().faults.length, 1);
  t.equal((await app.inject({ method: 'DELETE', url: '/__admin/faults' })).statusCode, 204);
  t.equal((await get('/api/v3/currencies')).statusCode, 200, 'cleared');
  for (const bad of [{ method: 'GET', path: '/x', status: 99 }, { method: 'GET', status: 500 }, { method: 'GET', path: '/x', status: 500, delay_ms: 70000 }]) {
    t.equal((await arm(bad)).statusCode, 400, JSON.stringify(bad));
  }

  const prefer = await get('/api/v3/currencies', { prefer: 'code=503' });
  t.same([prefer.statusCode, prefer.json()], [503, { code: '503', message: 'Prefer: code=503 asked for this status' }]);
  const t1 = Date.now();
  t.equal((await get('/api/v3/currencies', { prefer: 'delay=60' })).statusCode, 200);
  t.ok(Date.now() - t1 >= 55);
  t.equal((await get('/api/v3/currencies', { prefer: 'return=minimal' })).statusCode, 200, 'other preferences are ignored');
  for (const bad of ['code=abc', 'code=700', 'delay=-1', 'delay=70000']) {
    t.equal((await get('/api/v3/currencies', { prefer: bad })).statusCode, 400, bad);
  }
});

t.test('orders listing and item status moves', async (t) => {
  const app = await buildTestApp({ config: { webhookUrl: 'http://127.0.0.1:9/hook' } });
  t.teardown(() => app.close());
  const call = overInject(app, 'shop');
  const book = () => bookOrder(call);
  const order = await book();
  const item = order.items[0]!.uuid;

  const listed = (await app.inject({ url: '/__admin/orders?application=shop' })).json().orders;
  t.match(listed, [{ application: 'shop', uuid: order.uuid, paid: true, items: [{ uuid: item, status: 'PENDING', version: 1 }] }]);
  t.same((await app.inject({ url: '/__admin/orders?application=other' })).json().orders, []);
  const move = (status: string, uuid = item) => app.inject({ method: 'POST', url: `/__admin/order-items/${uuid}/status`, payload: { status } });
  const ok = await move('OK');
  t.match(ok.json(), { uuid: item, status: 'OK', version: 2, application: 'shop' });
  t.same(app.webhooks.list({ order_item_uuid: item }).map((d) => d.payload.order_item_status), ['OK']);
  const forbidden = await move('PENDING');
  t.same([forbidden.statusCode, forbidden.json().code], [409, '0']);
  t.match(forbidden.json().message, /from OK/);
  t.equal((await move('MAYBE')).statusCode, 400);
  t.equal((await move('OK', 'nope')).statusCode, 404);
  t.match((await call('GET', `/orders/${order.uuid}`)).items[0], { status: 'OK', version: 2 });
  const later = await book();
  t.match((await move('KO', later.items[0]!.uuid)).json(), { uuid: later.items[0]!.uuid, status: 'KO', application: 'shop' }, 'an order booked after the first move is found too');
  t.equal((await app.inject({ method: 'POST', url: `/__admin/order-items/${item}/status?application=other`, payload: { status: 'REFUND_STARTED' } })).statusCode, 404, 'not in another application');
});

t.test('faults and Prefer force only error statuses 400..599; a fault that can never match is refused', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const markets = (headers: Record<string, string> = {}) => app.inject({ url: '/api/v3/markets', headers: { ...H, ...headers } });
  const arm = (body: object) => app.inject({ method: 'POST', url: '/__admin/faults', payload: body });
  const refused = (message: string) => ({ code: '0', message });
  /** Status and body; a body that is no JSON (a 1xx has none) as its text, so the check fails rather than throws. */
  const answer = (res: { statusCode: number; body: string }) => {
    try {
      return [res.statusCode, JSON.parse(res.body)];
    } catch {
      return [res.statusCode, res.body];
    }
  };

  // A 2xx would go through the route's response schema (a 500), a 1xx leaves the client waiting.
  for (const code of ['200', '100', '101', '302', '399', '700']) {
    const res = await markets({ prefer: `code=${code}` });
    t.same(answer(res), [400, refused(`Prefer: code=${code}: only 400..599 can be forced`)], `Prefer: code=${code}`);
  }
  const abc = await markets({ prefer: 'code=abc' });
  t.same(answer(abc), [400, refused('Prefer: code must be an HTTP status 400..599, got "abc"')], 'a code that is no status');
  for (const code of [400, 599]) {
    const res = await markets({ prefer: `code=${code}` });
    t.same(answer(res), [code, { code: String(code), message: `Prefer: code=${code} asked for this status` }], `Prefer: code=${code} still forced`);
  }

  const bad: [object, string][] = [
    [{ method: 'GET', path: '/markets', status: 200 }, 'body "status" 200: only 400..599 can be forced'],
    [{ method: 'GET', path: '/markets', status: 100 }, 'body "status" 100: only 400..599 can be forced'],
    [{ method: 'FOO', path: '/markets', status: 503 }, 'body "method" "FOO" is not allowed: one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS, *'],
    [{ method: 'GET', path: 'activities', status: 503 }, 'body "path" "activities" must start with "/" (a path under the base path, or the full path)'],
  ];
  for (const [body, message] of bad) {
    const res = await arm(body);
    t.same(answer(res), [400, refused(message)], JSON.stringify(body));
  }
  t.same((await app.inject({ url: '/__admin/faults' })).json().faults, [], 'nothing refused was armed');
  t.equal((await markets()).statusCode, 200);
  const extra = await arm({ method: 'GET', path: '/markets', status: 503, foo: 1 });
  t.same(answer(extra), [400, refused('body "foo" is not allowed')], 'an unknown field');
  await app.inject({ method: 'DELETE', url: '/__admin/faults' });

  const ok = await arm({ method: 'get', path: '/markets', status: 599 });
  t.equal(ok.statusCode, 201);
  t.match(ok.json(), { id: Number, method: 'GET', path: '/markets', status: 599, times: 1, delay_ms: 0 }, 'a lower case method is upper-cased');
  const faulted = await markets();
  t.same([faulted.statusCode, faulted.json().code], [599, '599']);
  t.equal((await markets()).statusCode, 200, 'used up');
});
