// The integration report against a deliberately sloppy client: one test per finding, then coverage,
// error paths, reset and --report off.
import t, { type Test } from 'tap';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { fixedClock } from '../../src/clock.js';
import type { Report } from '../../src/report/index.js';
import { AppBook } from '../../src/report/book.js';
import { MAX_ECHO, MAX_ECHO_PATH } from '../../src/http/errors.js';
import { buildTestApp } from '../helper.js';
import { buildWebhookApp, deadPort } from '../webhooks/receiver.js';

const APP = 'sloppy';
const INSTANT = '4e451a8a-2ee5-493f-aa12-a39f13d7253e';
const CONFIRM = '0f5821c5-2046-11e7-9cc9-06a7e332783f';
const REFUND = '0f641d85-2046-11e7-9cc9-06a7e332783f';
const LEAD = { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', musement_newsletter: 'NO', allow_profiling: 'NO', thirdparty_newsletter: 'NO', events_related_newsletter: 'NO' };

function client(app: FastifyInstance, extra: Record<string, string> = {}) {
  const headers: Record<string, string> = { 'x-service-application': APP, ...extra };
  const call = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) => {
    const res = await app.inject({ method, url: `/api/v3${url}`, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
    if (url === '/login' && res.statusCode === 200) headers.authorization = `Bearer ${res.json().access_token}`;
    return res;
  };
  const ok = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) => {
    const res = await call(method, url, payload);
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.body ? res.json() : undefined;
  };
  /** Cart, item, customer, order, payment: the order, its first item paid (OK for INSTANT). */
  const book = async (activity = INSTANT, opts: { readSchema?: boolean } = {}) => {
    const [schedule] = await ok('GET', `/activities/${activity}/dates/2026-01-20`);
    const cart = await ok('POST', '/carts');
    await ok('POST', `/carts/${cart.uuid}/items`, [{ product_identifier: schedule.groups[0].slots[0].products[0].product_id, quantity: 1, ...(activity === CONFIRM ? { language: 'en' } : {}) }]);
    if (opts.readSchema) await ok('GET', `/carts/${cart.uuid}/customer/schema`);
    await ok('PUT', `/carts/${cart.uuid}/customer`, LEAD);
    const order = await ok('POST', '/orders', { cart_uuid: cart.uuid, email_notification: 'NONE' });
    await ok('POST', '/login', { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' });
    return ok('POST', '/payments/no/payment', { uuid: order.uuid });
  };
  return { call, ok, book, headers };
}

const report = (app: FastifyInstance): Report => app.integrationReport!.get(APP);
const finding = (app: FastifyInstance, id: string) => report(app).findings.filter((f) => f.id === id);

async function fresh(t: Test, clock = fixedClock()) {
  const app = await buildTestApp({ clock });
  t.teardown(() => app.close());
  return { app, clock, ...client(app, { 'x-service-version': '3.5.0' }) };
}

t.test('unknown-query-parameter: a filter the operation does not take', async (t) => {
  const { app, call } = await fresh(t);
  t.equal((await call('GET', '/cities?country_in=IT&limit=5')).statusCode, 200, 'the answer is as it always was');
  t.match(finding(app, 'unknown-query-parameter'), [{ severity: 'warning', count: 1, message: /: country_in on GET \/cities$/, first: { method: 'GET', path: '/api/v3/cities', reqId: String } }]);
  t.equal(report(app).verdict, 'pass', 'warnings do not fail the report');
});

t.test('the report echoes client input clipped: the application name, unknown names, paths (a 15 KB name came back whole)', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const name = 'n'.repeat(15_000);
  const clipped = `${'n'.repeat(MAX_ECHO)}… (15000 characters)`;
  const unseen = await app.inject({ url: `/__admin/report?application=${name}` });
  t.equal(unseen.statusCode, 200);
  t.equal(unseen.json().application, clipped, 'an application not seen yet');
  t.ok(unseen.body.length < 3000, `${unseen.body.length} bytes`);

  const headers = { 'x-service-application': name };
  t.equal((await app.inject({ url: `/api/v3/cities?${'q'.repeat(10_000)}=1`, headers })).statusCode, 200);
  t.equal((await app.inject({ url: `/api/v3/carts/${'c'.repeat(10_000)}`, headers })).statusCode, 404);
  const seen = await app.inject({ url: `/__admin/report?application=${name}` });
  t.match(seen.json(), { application: clipped, requests: 2 }, "the application's own report");
  t.match(seen.json().findings.filter((f: { id: string }) => f.id === 'unknown-query-parameter'), [{ message: new RegExp(`: q{${MAX_ECHO}}… \\(10000 characters\\) on GET /cities$`) }]);
  const paths = seen.json().findings.map((f: { first: { path: string } }) => f.first.path);
  t.ok(paths.every((p: string) => p.length <= MAX_ECHO_PATH + 30), 'example paths clipped');
  t.ok(seen.body.length < 5000, `${seen.body.length} bytes`);
});

t.test('value-outside-enum and missing-body-field: what the schemas refuse', async (t) => {
  const { app, call } = await fresh(t);
  t.equal((await call('GET', '/venues?status=BOGUS')).statusCode, 400);
  t.equal((await call('POST', '/login', { client_id: 'sandbox-client', grant_type: 'client_credentials' })).statusCode, 400);
  t.equal((await call('GET', '/activities?sort_by=-prize')).statusCode, 400, 'a list the route checks itself counts as the schema\'s enums do');
  t.match(finding(app, 'value-outside-enum'), [
    { severity: 'error', operation: 'GET /venues', message: /: GET \/venues: 400 "querystring "status" must be equal to one of the allowed values/, answer: { status: 400, code: '0' } },
    { severity: 'error', operation: 'GET /activities', message: /querystring "sort_by" has unknown value "-prize"/ },
  ]);
  t.match(finding(app, 'missing-body-field'), [{ severity: 'error', operation: 'POST /login', answer: { message: 'body "client_secret" is required' } }]);
  t.equal(report(app).verdict, 'fail');
});

t.test('unknown-body-field', async (t) => {
  const { app, call } = await fresh(t);
  await call('POST', '/login', { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials', scope: 'all' });
  t.match(finding(app, 'unknown-body-field'), [{ message: /: scope on POST \/login$/ }]);
});

t.test('the version advice names the version the client sends on its other requests, else an example', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  await client(app).call('GET', '/currencies');
  t.match(finding(app, 'no-version-header'), [{ advice: /send X-Service-Version on every request, e\.g\. 3\.4\.0\.$/ }], 'no version sent at all: an example');
  await client(app, { 'x-service-version': '3.5.0' }).call('GET', '/currencies');
  await client(app, { 'x-service-version': '4.0.0' }).call('GET', '/currencies');
  t.match(finding(app, 'no-version-header'), [{ count: 1, advice: /send X-Service-Version on every request, 3\.5\.0, as your other requests do\.$/ }]);
  t.match(finding(app, 'unknown-version'), [{ advice: /the version you were certified on, 3\.5\.0, as your other requests do\.$/ }]);
});

t.test('no-version-header and unsupported-locale', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const bare = client(app, { 'accept-language': 'xx-XX' });
  await bare.call('GET', '/currencies');
  await bare.call('GET', '/currencies');
  t.match(finding(app, 'no-version-header'), [{ severity: 'warning', count: 2 }]);
  t.match(finding(app, 'unsupported-locale'), [{ severity: 'warning', message: /: xx-XX$/ }]);
  const pinned = await fresh(t);
  await pinned.call('GET', '/currencies');
  t.same(finding(pinned.app, 'no-version-header'), [], 'with the header: none');
});

t.test("code-for-uuid: the order identifier or an item's code in a path, and a 404 that says so", async (t) => {
  const { app, call, book } = await fresh(t);
  const order = await book();
  const item = order.items[0];
  const byCode = await call('GET', `/orders/${order.uuid}/items/${item.code}/refund-policies`);
  t.equal(byCode.statusCode, 404);
  t.equal(byCode.json().message, `Order item ${item.code} does not exist: ${item.code} is the order item's code; this path takes its uuid (${item.uuid})`);
  const byIdentifier = await call('GET', `/orders/${order.identifier}`);
  t.match(byIdentifier.json().message, `Order ${order.identifier} does not exist: ${order.identifier} is the order's identifier; this path takes its uuid (${order.uuid})`);
  t.match(finding(app, 'code-for-uuid'), [{ severity: 'error' }, { severity: 'error' }]);
  t.equal((await call('GET', '/orders/00000000-0000-4000-8000-000000000000')).json().message, 'Order 00000000-0000-4000-8000-000000000000 does not exist', 'a plain unknown id: no hint');
});

t.test('cancel-without-refund-policies, customer-without-schema', async (t) => {
  const { app, ok, book } = await fresh(t);
  const careless = await book();
  await ok('DELETE', `/orders/${careless.uuid}/items/${careless.items[0].uuid}`, { cancellation_reason: 'CANCELLED-BY-CUSTOMER' });
  t.match(finding(app, 'cancel-without-refund-policies'), [{ severity: 'warning', count: 1 }]);
  t.match(finding(app, 'customer-without-schema'), [{ severity: 'warning', count: 1 }]);
  const careful = await book(INSTANT, { readSchema: true });
  const item = careful.items[0].uuid;
  const policies = await app.inject({ url: `/api/v3/orders/${careful.uuid}/items/${item}/refund-policies`, headers: { 'x-service-application': APP } });
  t.equal(policies.statusCode, 404, 'this activity has none: reading that counts too');
  await ok('DELETE', `/orders/${careful.uuid}/items/${item}`, { cancellation_reason: 'CANCELLED-BY-CUSTOMER' });
  t.match(finding(app, 'cancel-without-refund-policies'), [{ count: 1 }], 'the careful cancellation adds nothing');
  t.match(finding(app, 'customer-without-schema'), [{ count: 1 }]);
});

t.test('language-ignored: one finding for the operation, with its count and the activities as examples (it was one per activity)', async (t) => {
  const { app, ok } = await fresh(t);
  for (const activity of [INSTANT, REFUND]) {
    t.same(app.catalog.activityByUuid.get(activity)?.booking.languages, [], 'an activity without languages');
    const [schedule] = await ok('GET', `/activities/${activity}/dates/2026-01-20`);
    const cart = await ok('POST', '/carts');
    for (const language of ['en', 'en']) await ok('POST', `/carts/${cart.uuid}/items`, [{ product_identifier: schedule.groups[0].slots[0].products[0].product_id, quantity: 1, language }]);
  }
  t.match(finding(app, 'language-ignored'), [{ count: 4, operation: 'POST /carts/{cartUuid}/items', message: new RegExp(`was dropped: "en" for activity ${INSTANT}; "en" for activity ${REFUND}$`) }]);
  const book = new AppBook(new Date(0).toISOString());
  const at = { method: 'POST', url: '/x', reqId: 'r', at: 0 };
  for (const n of [1, 2, 3, 4, 5, 1]) book.note('pickup-ignored', at, `activity ${n}`, { group: 'POST /carts/:cartUuid/items' });
  t.match(book.report('a', 'X-').findings, [{ count: 6, message: /: activity 1; activity 2; activity 3; …$/ }], 'three examples at most, and a mark when there were more');
});

t.test('language-not-offered', async (t) => {
  const { app, ok, call } = await fresh(t);
  const [schedule] = await ok('GET', `/activities/${CONFIRM}/dates/2026-01-20`);
  const cart = await ok('POST', '/carts');
  t.equal((await call('POST', `/carts/${cart.uuid}/items`, [{ product_identifier: schedule.groups[0].slots[0].products[0].product_id, quantity: 1, language: 'de' }])).statusCode, 400);
  t.match(finding(app, 'language-not-offered'), [{ severity: 'error', operation: 'POST /carts/{cartUuid}/items', answer: { message: /"language" must be one of/ } }]);
});

t.test('token-not-reused and expired-token, on the server clock', async (t) => {
  const { app, call, clock } = await fresh(t);
  const login = () => call('POST', '/login', { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' });
  for (let i = 0; i < 3; i++) await login();
  t.same(finding(app, 'token-not-reused'), [], 'three logins in an hour are fine');
  await login();
  t.match(finding(app, 'token-not-reused'), [{ severity: 'warning', count: 1 }]);
  clock.advance(2 * 3600 * 1000);
  t.equal((await call('GET', '/currencies')).statusCode, 401);
  t.match(finding(app, 'expired-token'), [{ severity: 'warning' }]);
});

t.test('order-polling: more than once a second for over 10 s', async (t) => {
  const { app, call, book, clock } = await fresh(t);
  const order = await book();
  for (let i = 0; i < 10; i++) {
    await call('GET', `/orders/${order.uuid}`);
    clock.advance(2000);
  }
  t.same(finding(app, 'order-polling'), [], 'every 2 s for 20 s: fine');
  for (let i = 0; i < 14; i++) {
    await call('GET', `/orders/${order.uuid}`);
    clock.advance(900);
  }
  t.match(finding(app, 'order-polling'), [{ severity: 'warning', count: 1 }], 'every 0.9 s for 12 s: once');
});

t.test('webhook-failed and webhook-slow', async (t) => {
  const slow = http.createServer((req, res) => {
    req.resume();
    setTimeout(() => res.writeHead(200).end(), 5100);
  });
  await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise((r) => (slow.closeAllConnections(), slow.close(r))));
  const app = await buildWebhookApp({ config: { webhookUrl: `http://127.0.0.1:${await deadPort()}/hooks` }, webhooks: { schedule: [], timeoutMs: 8000 } });
  t.teardown(() => app.close());
  const c = client(app, { 'x-service-version': '3.5.0' });
  await c.book();
  await app.webhooks.idle();
  t.match(finding(app, 'webhook-failed'), [{ severity: 'error', message: /the last attempt: ECONNREFUSED/, first: { method: 'POST', path: /^webhook whd_/ } }]);
  await app.inject({ method: 'PUT', url: '/__admin/webhooks/config', payload: { url: `http://127.0.0.1:${(slow.address() as AddressInfo).port}/hooks` } });
  await c.book();
  await app.webhooks.idle();
  t.match(finding(app, 'webhook-slow'), [{ severity: 'warning', message: /: \d{4} ms$/ }]);
  t.equal(report(app).coverage.steps.find((s) => s.name === 'webhook answered 200')?.done, true);
});

t.test('refusals group by operation and reason (code and message without ids), each with the server\'s answer', async (t) => {
  const { app, call } = await fresh(t);
  await call('GET', '/activities/nope');
  await call('GET', '/activities/nope-again');
  await call('GET', '/carts/0b5a3c8e-1111-4222-8333-444455556666');
  await call('GET', '/carts/0b5a3c8e-1111-4222-8333-777755556666');
  await call('GET', '/orders/0b5a3c8e-1111-4222-8333-444455556666');
  t.match(finding(app, 'invalid-value'), [{ severity: 'error', count: 2, operation: 'GET /activities/{activityUuid}', answer: { status: 400, code: '0', message: 'params "activityUuid" must be a UUID, got "nope"' } }]);
  t.match(finding(app, 'not-found'), [
    { count: 2, operation: 'GET /carts/{cartUuid}', answer: { status: 404, code: '1400', message: 'Cart 0b5a3c8e-1111-4222-8333-444455556666 does not exist' } },
    { count: 1, operation: 'GET /orders/{orderUuid}' },
  ]);
  t.same(finding(app, 'client-error'), [], 'no refusal falls through to the catch-all');
});

t.test('coverage of a whole booking, error paths, GET /__admin/report, reset and --report off', async (t) => {
  const { app, ok, call, book } = await fresh(t);
  await ok('GET', '/activities?limit=1');
  await ok('GET', `/activities/${INSTANT}/dates?date_from=2026-01-20&date_to=2026-01-21`);
  const order = await book(INSTANT, { readSchema: true });
  const item = order.items[0];
  await ok('GET', `/orders/${order.uuid}`);
  t.equal((await call('GET', `/orders/${order.uuid}/activities/${INSTANT}/voucher`)).statusCode, 200, 'the voucher PDF');
  await call('GET', `/orders/${order.uuid}/items/${item.uuid}/refund-policies`);
  await ok('DELETE', `/orders/${order.uuid}/items/${item.uuid}`, { cancellation_reason: 'CANCELLED-BY-CUSTOMER' });
  await ok('GET', `/orders/${order.uuid}/refunds`);
  await app.inject({ method: 'POST', url: '/__admin/faults', payload: { method: 'GET', path: '/currencies', status: 503 } });
  await call('GET', '/currencies');
  await app.inject({ url: '/api/v3/currencies', headers: { 'x-service-application': APP, 'x-service-version': '3.5.0', prefer: 'code=429' } });
  const res = await app.inject({ url: `/__admin/report?application=${APP}` });
  t.equal(res.statusCode, 200);
  const r = res.json() as Report;
  const done = Object.fromEntries(r.coverage.steps.map((s) => [s.name, s.done]));
  t.match(done, { login: true, search: true, dates: true, 'day schedule': true, cart: true, 'add item': true, 'customer schema': true, 'customer info': true, participants: false, order: true, 'no-payment': true, 'order read with voucher links': true, 'voucher PDF': true, 'refund policies': false, cancellation: true, 'refunds read': true, 'webhook answered 200': false });
  t.same(r.coverage.error_paths.map((e) => [e.name, e.count]), [['4xx answered', 2], ['injected fault', 1], ['Prefer header', 1]], 'the 503 fault, the Prefer 429 (a 4xx) and the refund policies 404');
  t.match(r, { application: APP, since: '2026-01-15T10:00:00.000Z', verdict: 'pass' });
  t.ok(r.requests >= 15);
  t.equal((await app.inject({ url: '/__admin/report' })).json().application, APP, 'the only application seen, when none is named');
  await app.inject({ method: 'POST', url: '/__admin/reset', payload: { application: APP } });
  t.equal((await app.inject({ url: `/__admin/report?application=${APP}` })).json().requests, 0, 'a reset clears its report');
  const off = await buildTestApp({ config: { report: 'off' } });
  t.teardown(() => off.close());
  t.match((await off.inject({ url: '/__admin/report?application=x' })).json(), { code: '0', message: /--report off/ });
});
