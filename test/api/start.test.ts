// The programmatic API from the sources: startMockServer and every method of its control client,
// against a real listening server (over fetch, as a user's test would call it).
import t, { type Test } from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ConfigError, ControlApiError, createControlClient, startMockServer, type ControlClient } from '../../src/index.js';
import { tempDir } from '../tmp.js';
import { bookOverHttp as book } from '../book-order.js';

/** Rejects with a ControlApiError of that status and code. */
async function rejectsWith(t: Test, p: Promise<unknown>, status: number, code: string | null, message?: RegExp) {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  t.ok(err instanceof ControlApiError, `a ControlApiError (${String(err)})`);
  t.match(err, { name: 'ControlApiError', status, code, ...(message ? { message } : {}) });
}

t.test('startMockServer: free port, memory state, silent, URLs, close()', async (t) => {
  const banner: string[] = [];
  const server = await startMockServer({ catalogSize: 5, banner: (line) => banner.push(line) });
  t.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  t.not(server.port, 0);
  t.equal(server.url, `http://127.0.0.1:${server.port}`);
  t.equal(server.apiUrl, `${server.url}/api/v3`);
  t.equal(server.controlUrl, `${server.url}/__admin`);
  t.equal(server.control.url, server.controlUrl);
  t.match(server.config, { port: 0, db: 'memory', logLevel: 'silent', catalogSize: 5, basePath: '/api/v3' });
  t.match(banner.join('\n'), `API           ${server.apiUrl}`, 'the banner goes to the function given');
  const res = await fetch(`${server.apiUrl}/currencies`, { headers: { 'x-service-application': 'start-test' } });
  t.equal(res.status, 200);
  t.ok(Array.isArray(await res.json()));
  const closing = server.close();
  t.equal(server.close(), closing, 'close() again waits for the same close');
  await closing;
  await t.rejects(fetch(`${server.url}/__admin/health`), 'nothing listens after close()');
});

t.test('options are checked as the CLI checks them', async (t) => {
  await t.rejects(startMockServer({ prot: 1 } as never), new ConfigError('startMockServer: unknown option "prot" (did you mean "port"?)'));
  await t.rejects(startMockServer({ catalogSize: -1 }), { name: 'ConfigError', message: /^startMockServer: catalogSize: -1 is out of range/ });
  await t.rejects(startMockServer({ basePath: 'api' }), { name: 'ConfigError', message: /^startMockServer: basePath: "api" must start with \// });
  await t.rejects(startMockServer({ logLevel: 'loud' }), { name: 'ConfigError', message: /logLevel: "loud" is not one of/ });
  const a = await startMockServer({ catalogSize: 1 });
  t.teardown(() => a.close());
  await t.rejects(startMockServer({ catalogSize: 1, port: a.port }), { name: 'ConfigError', message: /port \d+ is in use/ });
  // Settings the CLI has, under their Config names; null means the default.
  const b = await startMockServer({ catalogSize: 1, basePath: '/v3/', headerPrefix: 'X-Acme-', seed: 7, webhookUrl: null, host: '0.0.0.0' });
  t.teardown(() => b.close());
  t.equal(b.url, `http://127.0.0.1:${b.port}`, 'an every-interface address is reached on loopback');
  t.equal(b.apiUrl, `${b.url}/v3`);
  t.equal((await fetch(`${b.apiUrl}/currencies`, { headers: { 'x-acme-application': 'x' } })).status, 200);
  t.match(await b.control.health(), { seed: 7 });
});

t.test('every control client method against a listening server', async (t) => {
  const received: unknown[] = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      received.push(JSON.parse(body));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise((r) => receiver.close(r)));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  const server = await startMockServer({ catalogSize: 5 });
  t.teardown(() => server.close());
  const control: ControlClient = server.control;

  t.match(await control.health(), { status: 'ok', version: /^\d+\.\d+\.\d+/, seed: 1, uptime_s: Number, store: { writes: Number } });

  t.match(await control.clock.set('2026-01-15T10:00:00Z'), { now: /^2026-01-15T10:00:00\.\d{3}Z$/ });
  const advanced = await control.clock.advance('PT1H');
  const reading = await control.clock.now();
  t.ok(Date.parse(reading.now) >= Date.parse(advanced.now), 'now: the moved time');
  t.ok(Math.abs(reading.offset_ms - (Date.parse(reading.now) - Date.now())) < 5_000, `offset_ms ${reading.offset_ms}: the server time less real time`);
  t.ok(Date.parse(advanced.now) >= Date.parse('2026-01-15T11:00:00Z'), advanced.now);
  t.match(await control.clock.set(new Date('2026-01-15T10:00:00Z')), { now: /^2026-01-15T10:00/ });
  await rejectsWith(t, control.clock.advance('two hours'), 400, '0', /advance/);

  t.match(await control.webhooks.config({ url: hook }), { application: null, url: hook, source: 'stored', signing: 'none', signed: false });
  t.match(await control.webhooks.config({ url: hook, secret: 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0', application: 'shop' }), { application: 'shop', url: hook, signing: 'own', signed: true });
  t.match(await control.webhooks.getConfig(), { default: { url: hook, source: 'stored', signed: false }, applications: { shop: { url: hook, source: 'stored', signed: true } } });
  await rejectsWith(t, control.webhooks.config({ url: 'ftp://nope' }), 400, '0');
  t.same(await control.webhooks.chaos.set({ application: 'other', duplicate: 0.5 }), { application: 'other', duplicate: 0.5, reorder: false, delay_ms: [0, 0], fail_first: 0 });
  t.same((await control.webhooks.chaos.get()).applications, { other: { duplicate: 0.5, reorder: false, delay_ms: [0, 0], fail_first: 0 } });
  await control.webhooks.chaos.clear('other');
  t.same(await control.webhooks.chaos.get(), { all: null, applications: {} });
  await rejectsWith(t, control.webhooks.chaos.set({ duplicate: 3 }), 400, '0');

  t.same(await control.orders(), { orders: [] });
  t.same(await control.deliveries(), { deliveries: [] });
  const order = await book(server.apiUrl, 'shop');
  const item = order.items[0]!.uuid;
  t.match(await control.orders(), { orders: [{ application: 'shop', uuid: order.uuid, paid: true, items: [{ uuid: item, status: 'PENDING', version: 1 }] }] });
  t.same((await control.orders('other')).orders, []);

  t.match(await control.moveItem(item, 'OK'), { application: 'shop', order_uuid: order.uuid, uuid: item, status: 'OK', version: 2 });
  await rejectsWith(t, control.moveItem(item, 'PENDING'), 409, '0', /cannot move from OK to PENDING/);
  await rejectsWith(t, control.moveItem(item, 'MAYBE' as never), 400, '0');
  await rejectsWith(t, control.moveItem('no-such-item', 'OK'), 404, '1400', /Order item no-such-item does not exist/);
  await rejectsWith(t, control.moveItem(item, 'REFUND_STARTED', 'other'), 404, '1400');

  // The move's webhook reaches the receiver.
  let deliveries = (await control.deliveries({ order_item_uuid: item })).deliveries;
  for (let i = 0; i < 100 && deliveries[0]?.state !== 'delivered'; i++) {
    await new Promise((r) => setTimeout(r, 50));
    deliveries = (await control.deliveries({ order_item_uuid: item })).deliveries;
  }
  t.match(deliveries, [{ application: 'shop', order_item_uuid: item, state: 'delivered', payload: { order_item_status: 'OK' }, attempts: [{ status_code: 200 }] }]);
  t.match(received, [{ order_item_uuid: item, order_item_status: 'OK' }], 'the receiver got it');
  t.same((await control.deliveries({ application: 'other' })).deliveries, []);
  const again = await control.redeliver(deliveries[0]!.id);
  t.match(again, { delivery: { id: deliveries[0]!.id } });
  await rejectsWith(t, control.redeliver('whd_nope'), 404, '1400');

  const { scenarios } = await control.scenarios();
  t.ok(scenarios.length >= 5);
  t.match(
    scenarios.find((s) => s.name === 'instant-confirmation'),
    { from: 'PENDING', builtin: true, steps: [{ after: 'PT0S', status: 'OK' }] },
  );
  const second = await book(server.apiUrl, 'shop');
  t.match(await control.runScenario('instant-confirmation', { order_uuid: second.uuid }), { runs: [{ scenario: 'instant-confirmation', application: 'shop', order_uuid: second.uuid, order_item_uuid: second.items[0]!.uuid }] });
  await rejectsWith(t, control.runScenario('instant-confirmation', { order_item_uuid: item }), 409, '0', /starts from PENDING/);
  await rejectsWith(t, control.runScenario('no-such-scenario', { order_item_uuid: item }), 404, '1400');
  t.match((await control.orders('shop')).orders.find((o) => o.uuid === second.uuid), { items: [{ status: 'OK' }] });

  const fault = await control.faults.add({ method: 'get', path: '/currencies', status: 503, times: 2 });
  t.match(fault, { id: Number, method: 'GET', path: '/currencies', status: 503, times: 2, delay_ms: 0 });
  t.match(await control.faults.list(), { faults: [{ id: fault.id, status: 503 }] });
  const currencies = () => fetch(`${server.apiUrl}/currencies`, { headers: { 'x-service-application': 'shop' } }).then((r) => r.status);
  t.equal(await currencies(), 503);
  t.equal(await control.faults.clear(), undefined);
  t.same(await control.faults.list(), { faults: [] });
  t.equal(await currencies(), 200);
  await rejectsWith(t, control.faults.add({ method: 'GET', path: '/currencies', status: 200 }), 400, '0');

  const { requests } = await control.requests({ application: 'shop', limit: 2 });
  t.match(requests, [{ method: 'GET', path: '/api/v3/currencies', status: 200, application: 'shop' }, { status: 503 }]);
  t.equal((await control.requests()).requests.length > 2, true);
  const detail = await control.request(requests[0]!.id);
  t.match(detail, { id: requests[0]!.id, path: '/api/v3/currencies', request: { headers: { 'x-service-application': 'shop' }, body: null }, response: { body: /"code"/, truncated: false } });
  await rejectsWith(t, control.request(99_999_999), 404, '1400');
  t.equal(await control.clearRequests('nobody'), undefined);
  t.ok((await control.requests()).requests.length > 0, 'another application is left alone');
  await control.clearRequests();
  t.same(await control.requests(), { requests: [] });

  const report = await control.report('shop');
  t.match(report, { application: 'shop', verdict: 'pass', coverage: { error_paths: [{ name: '4xx answered' }, { name: 'injected fault', done: true }] } });
  t.ok(report.requests > 2);
  t.equal((await control.report()).application, 'shop', 'the only application that made partner requests, when none is named');
  t.match(await control.report('nobody-here'), { application: 'nobody-here', requests: 0, verdict: 'pass', findings: [] }, 'an application not seen yet: an empty report');

  t.same(await control.reset('other'), { reset: 'other' });
  t.equal((await control.orders()).orders.length, 2);
  t.same(await control.reset(), { reset: 'all' });
  t.same(await control.orders(), { orders: [] });
  t.same(await control.deliveries(), { deliveries: [] });
  const checked = await control.webhooks.check({ application: 'shop' });
  t.match(checked, { receiver: hook, checks: [{ id: 'signed-delivery', result: 'passed' }] }, "the check runs on the application's receiver");
});

t.test('the admin token: sent by the server\'s own client, needed by others', async (t) => {
  const server = await startMockServer({ catalogSize: 1, adminToken: 's3cret-token' });
  t.teardown(() => server.close());
  t.same(await server.control.reset(), { reset: 'all' }, 'control sends the token');
  const anonymous = createControlClient(server.controlUrl);
  t.match(await anonymous.health(), { status: 'ok' }, 'health stays open');
  await rejectsWith(t, anonymous.reset(), 401, '1401', /needs the admin token/);
  await rejectsWith(t, createControlClient(server.controlUrl, { adminToken: 'wrong' }).orders(), 401, '1401');
  const withToken = createControlClient(`${server.controlUrl}/`, { adminToken: 's3cret-token' });
  t.same(await withToken.orders(), { orders: [] }, 'a trailing slash is fine');
});

t.test('createControlClient: bad URLs and unreachable servers', async (t) => {
  t.throws(() => createControlClient('localhost:8080'), TypeError);
  t.throws(() => createControlClient('not a url'), /is not a URL/);
  // A port nothing listens on: a server closed a moment ago.
  const gone = await startMockServer({ catalogSize: 1 });
  await gone.close();
  await t.rejects(createControlClient(gone.controlUrl).health(), { message: new RegExp(`GET ${gone.controlUrl}/health failed`) });
});

t.test('close() flushes a state file: a new server on it comes back at the moved clock', async (t) => {
  const db = join(tempDir(t), 'state.json');
  const first = await startMockServer({ catalogSize: 1, db });
  const { now } = await first.control.clock.set('2030-05-01T12:00:00Z');
  await first.close();
  const second = await startMockServer({ catalogSize: 1, db });
  t.teardown(() => second.close());
  const moved = await second.control.clock.advance('PT0S');
  t.ok(Date.parse(moved.now) - Date.parse(now) < 60_000, `the clock kept (${now} -> ${moved.now})`);
});
