// What the report must get exactly right: who a request belongs to, the header names it advises,
// which 404s are answers rather than mistakes, unique JUnit names, and that it outlives a restart.
import t from 'tap';
import { join } from 'node:path';
import { FINDINGS, UNATTRIBUTED, type Report } from '../../src/report/index.js';
import { formatReport } from '../../src/report/format.js';
import { createStore } from '../../src/store/index.js';
import { buildTestApp } from '../helper.js';
import { tempDir } from '../tmp.js';
import { INSTANT, partner, REFUND } from './partner.js';

const ids = (r: Report) => r.findings.map((f) => f.id);

t.test('requests without an application header: the token\'s application, else the unattributed entry', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const shop = partner(app, 'shop');
  const token = await shop.login();
  const bare = { 'x-service-version': '3.5.0' };
  t.equal((await app.inject({ url: '/api/v3/currencies', headers: { ...bare, authorization: `Bearer ${token}` } })).statusCode, 400);
  t.match(app.integrationReport!.get('shop'), { requests: 2, findings: [{ id: 'missing-application-header', answer: { status: 400, code: '2271' } }] }, 'attributed to the token\'s application');
  t.same(app.integrationReport!.applications(), ['shop']);
  await app.inject({ url: '/api/v3/currencies', headers: bare });
  await app.inject({ url: '/api/v3/currencies', headers: { ...bare, authorization: 'Bearer unknown' } });
  const lost = app.integrationReport!.get(UNATTRIBUTED);
  t.match(lost, { application: '(unattributed)', requests: 2, findings: [{ id: 'missing-application-header', count: 2 }] });
  t.equal(app.integrationReport!.get('shop').unattributed, 2, 'each report says how many requests nobody owns');
  t.match(formatReport(app.integrationReport!.get('shop'), 'text'), /2 requests carried neither an application header nor a valid token/);
  const listed = (await app.inject({ url: '/__admin/report' })).json();
  t.equal(listed.application, 'shop', 'the unattributed entry is not picked when an application was seen');
  const alone = await buildTestApp();
  t.teardown(() => alone.close());
  await alone.inject({ url: '/api/v3/currencies' });
  t.match((await alone.inject({ url: '/__admin/report' })).json(), { application: UNATTRIBUTED, findings: [{ id: 'missing-application-header' }] }, 'it is, when nothing else was');
});

t.test('advice names headers with the server\'s prefix; no advice hard-codes X-Service-', async (t) => {
  for (const [id, kind] of Object.entries(FINDINGS)) t.notMatch(kind.advice, /X-Service-/, id);
  const app = await buildTestApp({ config: { headerPrefix: 'X-Acme-' } });
  t.teardown(() => app.close());
  const acme = partner(app, 'acme-shop', { 'x-acme-version': undefined, 'x-acme-currency': 'XYZ' }, 'x-acme-');
  await acme.call('GET', '/currencies');
  const report = app.integrationReport!.get('acme-shop');
  t.same(ids(report).sort(), ['invalid-currency', 'no-version-header'], 'a refusal by the header rules reaches the report');
  for (const f of report.findings) t.notMatch(`${f.message} ${f.advice}`, /X-Service-/, f.id);
  t.match(report.findings.find((f) => f.id === 'no-version-header')?.advice, /send X-Acme-Version on every request/);
  t.match(report.findings.find((f) => f.id === 'invalid-currency'), { advice: /X-Acme-Currency/, answer: { message: 'Invalid currency "XYZ" in X-Acme-Currency: use a code from /currencies' } });
});

t.test('documented "none" answers are not findings', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const p = partner(app, 'reader');
  await p.login();
  const order = await p.book({ activity: INSTANT });
  const cart = order.cart;
  const cartItem = order.items[0].cart_item_uuid;
  for (const path of [
    `/activities/${INSTANT}/extra-customer-data/schema`,
    `/activities/${INSTANT}/participants-info/schema`,
    `/activities/${INSTANT}/bundles`,
    `/carts/${cart}/items/${cartItem}/participants/schema`,
    `/orders/${order.uuid}/items/${order.items[0].uuid}/refund-policies`,
  ]) t.equal((await p.call('GET', path)).statusCode, 404, path);
  const report = app.integrationReport!.get('reader');
  t.same(ids(report), []);
  t.equal(report.coverage.error_paths.find((e) => e.name === '4xx answered')?.count, 6, 'they still count as 4xx met (with the participants schema the booking read)');
});

t.test('JUnit test case names are unique, one per finding', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const p = partner(app, 'ci');
  await p.call('GET', '/carts/0b5a3c8e-1111-4222-8333-444455556666');
  await p.call('GET', '/orders/0b5a3c8e-1111-4222-8333-444455556666');
  await p.call('GET', '/lists/999999');
  await p.call('GET', '/cities?limit=1000');
  await p.call('GET', '/cities?limit=0');
  const xml = formatReport(app.integrationReport!.get('ci'), 'junit');
  const names = [...xml.matchAll(/<testcase classname="findings\.\w+" name="([^"]+)"/g)].map((m) => m[1]);
  t.equal(names.length, app.integrationReport!.get('ci').findings.length);
  t.equal(new Set(names).size, names.length, names.join(' | '));
  t.ok(names.includes('not-found: GET /carts/{cartUuid}'));
});

t.test("JUnit test case names are as docs/report.md says: `id: operation`, `id` for a finding of no one operation, ` (2)` for a name met again", async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const p = partner(app, 'names', { 'x-service-version': undefined });
  await p.call('GET', '/carts/0b5a3c8e-1111-4222-8333-444455556666');
  await p.call('GET', '/cities?limit=1000');
  await p.call('GET', '/cities?limit=0');
  await p.call('GET', '/orders/0b5a3c8e-1111-4222-8333-444455556666');
  await p.call('GET', '/cities?country_in=IT');
  await p.call('GET', '/cities?country_in=IT&region_in=1');
  const report = app.integrationReport!.get('names');
  const names = [...formatReport(report, 'junit').matchAll(/<testcase classname="findings\.\w+" name="([^"]+)"/g)].map((m) => m[1]).sort();
  t.same(names, [
    'invalid-value: GET /cities', 'invalid-value: GET /cities (2)', 'no-version-header', 'not-found: GET /carts/{cartUuid}', 'not-found: GET /orders/{orderUuid}',
    'unknown-query-parameter: GET /cities', 'unknown-query-parameter: GET /cities (2)',
  ], 'a finding of an operation is named with it; a header finding is not; only a name met again is numbered');
});

t.test('the report survives a restart, and a reset still clears it', async (t) => {
  const file = join(tempDir(t, 'report-'), 'state.json');
  const first = await buildTestApp({ store: await createStore(file) });
  const p = partner(first, 'durable');
  await p.login();
  const order = await p.book({ activity: REFUND, readCustomerSchema: false });
  await p.ok('DELETE', `/orders/${order.uuid}/items/${order.items[0].uuid}`, { cancellation_reason: 'CANCELLED-BY-CUSTOMER' });
  await p.call('GET', '/cities?country_in=IT');
  // The version advice names the version of the client's other requests, after a restart too.
  await partner(first, 'durable', { 'x-service-version': undefined }).call('GET', '/currencies');
  t.match(first.integrationReport!.get('durable').findings.find((f) => f.id === 'no-version-header'), { advice: /3\.5\.0, as your other requests do/ });
  await partner(first, 'catalog-only').call('GET', '/cities?country_in=IT');
  const before = first.integrationReport!.get('durable');
  await first.close();

  const again = await buildTestApp({ store: await createStore(file) });
  t.teardown(() => again.close());
  const after = again.integrationReport!.get('durable');
  t.same(after, before, 'findings, counts, examples and coverage as they were');
  t.same(again.integrationReport!.applications(), ['durable'], 'an application with no state of its own (catalog reads only) is not written to the state file');
  // What the book remembers comes back too: this cancellation's policies were not read either.
  const q = partner(again, 'durable');
  await q.login();
  const next = await q.book({ activity: REFUND });
  await q.call('DELETE', `/orders/${next.uuid}/items/${next.items[0].uuid}`, { cancellation_reason: 'CANCELLED-BY-CUSTOMER' });
  t.match(again.integrationReport!.get('durable').findings.find((f) => f.id === 'cancel-without-refund-policies'), { count: 2 });
  t.ok(again.integrationReport!.get('durable').requests > before.requests + 10, 'the count goes on from where it was');
  await again.inject({ method: 'POST', url: '/__admin/reset', payload: { application: 'durable' } });
  await again.integrationReport!.flush();
  t.equal(again.integrationReport!.get('durable').requests, 0);
  t.equal(again.store.tenant('durable').report.book, undefined, 'the saved report went with the reset');
});
