/**
 * mock-server proxy in front of an upstream on 127.0.0.1 (another mock, another seed; or a fake
 * service of the test's own): answers pass through byte for byte, the journal, the report and the
 * dashboard's sources see the traffic, secrets stay masked, an upstream that fails is a 502.
 */
import t from 'tap';
import http from 'node:http';
import { gunzipSync, gzipSync } from 'node:zlib';
import { bookOverHttp } from '../book-order.js';
import { startMockServer } from '../../src/index.js';
import { loadReference } from '../conformance/reference.js';
import { BASE, call, deadPort, logSink, startFake, startForwardProxy, startMock, startProxy } from './servers.js';

const H = { 'x-service-application': 'proxied-app', 'x-service-version': '3.4.0' };
const ACTIVITY = '5a002d99-781b-479b-9a9d-9efadfd34ec2';
const SECRET = 'sandbox-secret';

t.test('answers pass through byte for byte: status, body and headers', async (t) => {
  const up = await startMock();
  const px = await startProxy(up.api);
  t.teardown(async () => {
    await px.close();
    await up.close();
  });
  const requests: Array<[string, { method?: string; headers?: Record<string, string>; body?: string }]> = [
    ['/activities?limit=3&sort_by=-relevance', { headers: H }],
    [`/activities/${ACTIVITY}`, { headers: { ...H, 'accept-language': 'it-IT', 'x-service-currency': 'GBP' } }],
    [`/activities/${ACTIVITY}/dates?date_from=2026-01-20&date_to=2026-01-25`, { headers: H }],
    ['/categories', { headers: H }],
    ['/events', { headers: H }],
    ['/activities/not-a-uuid', { headers: H }],
    ['/no-such-path', { headers: H }],
    ['/categories', { headers: {} }],
    ['/login', { method: 'POST', headers: { ...H, 'content-type': 'application/json' }, body: JSON.stringify({ client_id: 'sandbox-client', client_secret: 'wrong', grant_type: 'client_credentials' }) }],
    ['/carts', { method: 'POST', headers: { ...H, 'content-type': 'text/plain' }, body: 'not json' }],
  ];
  for (const [path, init] of requests) {
    const direct = await call(up.api + path, init);
    const proxied = await call(px.api + path, init);
    const what = `${init.method ?? 'GET'} ${path}`;
    t.equal(proxied.status, direct.status, `${what}: status ${direct.status}`);
    t.ok(proxied.body.equals(direct.body), `${what}: the same ${direct.body.length} bytes`);
    for (const header of ['content-type', 'deprecation', 'www-authenticate', 'cache-control']) t.equal(proxied.headers.get(header), direct.headers.get(header), `${what}: ${header}`);
  }
  // Through the proxy, the upstream saw the request as the client sent it: a cart made through it is the upstream's.
  const cart = JSON.parse((await call(`${px.api}/carts`, { method: 'POST', headers: H })).body.toString());
  t.equal((await call(`${up.api}/carts/${cart.uuid}`, { headers: H })).status, 200, 'the cart exists upstream');
  t.equal((await up.app.inject({ url: `/__admin/requests?application=${H['x-service-application']}` })).json().requests[0].path, `${BASE}/carts/${cart.uuid}`, 'the upstream journal has the direct read');
});

t.test('the journal, the report and the dashboard see the proxied traffic; no secret lands in them or the logs', async (t) => {
  const up = await startMock();
  const sink = await logSink();
  const px = await startProxy(up.api, {}, { logger: sink.logger });
  t.teardown(async () => {
    await px.close();
    await up.close();
  });
  const order = await bookOverHttp(px.api, 'booker');
  t.ok(order.uuid, 'a whole booking went through the proxy');
  await call(`${px.api}/activities?access_token=${SECRET}-in-query`, { headers: { 'x-service-application': 'booker' } });
  // Refusals the document lists (a 404 of an activity, a 404 of a day without schedule) are no departure.
  t.equal((await call(`${px.api}/activities/00000000-0000-4000-8000-000000000000`, { headers: { 'x-service-application': 'booker' } })).status, 404);
  t.equal((await call(`${px.api}/activities/${ACTIVITY}/dates/2020-01-01`, { headers: { 'x-service-application': 'booker' } })).status, 404);
  const journal = (await px.app.inject({ url: '/__admin/requests?application=booker' })).json().requests as Array<{ id: number; method: string; path: string; status: number }>;
  t.same(journal.map((r) => `${r.method} ${r.path.split('?')[0]} ${r.status}`).reverse(), [
    'POST /api/v3/login 200', `GET /api/v3/activities/0f5821c5-2046-11e7-9cc9-06a7e332783f/dates/2026-01-20 200`, 'POST /api/v3/carts 200',
    'POST /api/v3/carts/{c}/items 200', 'GET /api/v3/carts/{c}/customer/schema 200', 'PUT /api/v3/carts/{c}/customer 200', 'POST /api/v3/orders 200',
    'POST /api/v3/payments/no/payment 200', `GET /api/v3/orders/${order.uuid} 200`, 'GET /api/v3/activities 200',
    'GET /api/v3/activities/00000000-0000-4000-8000-000000000000 404', `GET /api/v3/activities/${ACTIVITY}/dates/2020-01-01 404`,
  ].map((l) => l.replace('{c}', journal.find((r) => r.method === 'POST' && r.path.startsWith('/api/v3/carts/'))?.path.split('/')[4] ?? '?')), 'every request in the journal, as answered');
  const login = (await px.app.inject({ url: `/__admin/requests/${journal.at(-1)!.id}` })).json();
  t.match(login.request.body, /"client_secret":"\*\*\*"/, 'the client secret is masked in the journal');
  t.match(login.response.body, /"access_token":"\*\*\*"/, 'the token answered is masked in the journal');
  const read = (await px.app.inject({ url: `/__admin/requests/${journal[3]!.id}` })).json();
  t.equal(read.request.headers.authorization, 'Bearer ***', "the partner's token is masked in the journal");

  const report = (await px.app.inject({ url: '/__admin/report?application=booker' })).json();
  t.equal(report.requests, 12, 'the report counted every request');
  const done = report.coverage.steps.filter((s: { done: boolean }) => s.done).map((s: { name: string }) => s.name);
  t.same(done, ['login', 'search', 'day schedule', 'cart', 'add item', 'customer schema', 'customer info', 'order', 'no-payment'], 'the booking steps the client made');
  t.ok(report.findings.some((f: { id: string }) => f.id === 'token-in-query'), 'a finding about the client, as for mocked traffic');
  t.notOk(report.findings.some((f: { id: string }) => f.id === 'upstream-schema-drift'), 'the upstream (a mock) answered as its document says');
  t.ok((await px.app.inject({ url: '/__admin/ui' })).statusCode < 400, 'the dashboard is served by the proxy');

  // One more login and read through the proxy, whose token the test knows.
  const token = JSON.parse((await call(`${px.api}/login`, { method: 'POST', headers: { ...H, 'content-type': 'application/json' }, body: JSON.stringify({ client_id: 'sandbox-client', client_secret: SECRET, grant_type: 'client_credentials' }) })).body.toString()).access_token as string;
  t.equal((await call(`${px.api}/activities/${ACTIVITY}`, { headers: { ...H, authorization: `Bearer ${token}` } })).status, 200);
  const all = [];
  for (const r of (await px.app.inject({ url: '/__admin/requests?limit=1000' })).json().requests) all.push((await px.app.inject({ url: `/__admin/requests/${r.id}` })).body);
  for (const application of ['booker', H['x-service-application']]) all.push((await px.app.inject({ url: `/__admin/report?application=${application}` })).body);
  all.push(...sink.lines);
  const everything = all.join('\n');
  t.notMatch(everything, SECRET, 'the client secret is nowhere: journal, report, logs');
  t.notMatch(everything, token, "the partner's token is nowhere");
  t.ok(sink.lines.length > 10, `${sink.lines.length} log lines looked at`);
});

t.test('an upstream that is down, too slow or cut off answers 502 {code, message}', async (t) => {
  const port = await deadPort();
  const silent = await startFake(() => undefined);
  const cut = await startFake((_req, _body, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
    res.write('{"partial":');
    setTimeout(() => res.destroy(), 20);
  });
  const down = await startProxy(`http://127.0.0.1:${port}/api/v3`);
  const slow = await startProxy(`${silent.origin}/api/v3`, {}, { upstream: { timeoutMs: 300 } });
  const broken = await startProxy(`${cut.origin}/api/v3`);
  t.teardown(async () => {
    for (const s of [down, slow, broken, silent, cut]) await s.close();
  });
  for (const [proxy, why] of [[down, /ECONNREFUSED/], [slow, /timeout after 300 ms/], [broken, /did not answer GET \/activities/]] as const) {
    const res = await call(`${proxy.api}/activities?access_token=hidden`, { headers: H });
    t.equal(res.status, 502);
    const body = JSON.parse(res.body.toString());
    t.same(Object.keys(body), ['code', 'message'], 'the error shape of every answer');
    t.match(body.message, why);
    t.notMatch(body.message, /hidden/, 'the query (which may hold a token) is not echoed');
  }
  const journal = (await down.app.inject({ url: '/__admin/requests' })).json().requests;
  t.equal(journal[0].status, 502, 'the journal has the 502');
});

t.test('the upstream is reached through the proxy HTTP_PROXY names', async (t) => {
  const up = await startMock();
  const forward = await startForwardProxy();
  const px = await startProxy(up.api, {}, { upstream: { proxy: { httpProxy: forward.url } } });
  t.teardown(async () => {
    await px.close();
    await forward.close();
    await up.close();
  });
  const res = await call(`${px.api}/categories`, { headers: H });
  t.equal(res.status, 200);
  t.same(forward.tunnels, [new URL(up.origin).host], 'the forward proxy carried it to the upstream');
});

t.test('where the upstream departs from the document, the report says so with a sample', async (t) => {
  const up = await startMock();
  // The fake service answers as the mock does, but for a few planted departures.
  const fake = await startFake(async (req, body, res) => {
    const url = req.url ?? '/';
    const direct = await up.app.inject({ method: req.method as 'GET', url, headers: req.headers as Record<string, string>, ...(body.length ? { payload: body } : {}) });
    let text = direct.body;
    let status = direct.statusCode;
    if (url === `${BASE}/activities/${ACTIVITY}`) {
      const a = JSON.parse(text);
      a.surprise = 'extra';
      a.retail_price.value = String(a.retail_price.value);
      delete a.title;
      text = JSON.stringify(a);
    } else if (url === `${BASE}/cities`) {
      status = 500;
      text = '{"error":"Internal Server Error"}';
    }
    res.writeHead(status, { 'content-type': 'application/json' }).end(text);
  });
  const px = await startProxy(`${fake.origin}${BASE}`);
  t.teardown(async () => {
    await px.close();
    await fake.close();
    await up.close();
  });
  for (let i = 0; i < 2; i++) t.equal((await call(`${px.api}/activities/${ACTIVITY}`, { headers: H })).status, 200, 'the departing answer still reaches the client');
  t.equal((await call(`${px.api}/cities`, { headers: H })).status, 500, 'as does the 500');
  t.equal((await call(`${px.api}/categories`, { headers: H })).status, 200);
  const report = (await px.app.inject({ url: `/__admin/report?application=${H['x-service-application']}` })).json();
  const drift = report.findings.filter((f: { id: string }) => f.id === 'upstream-schema-drift');
  const lines = drift.map((f: { message: string; count: number }) => `${f.message.replace(/^.*?: (?=GET)/, '')} x${f.count}`).sort();
  t.same(lines, [
    'GET /activities/{activityUuid} 200: /retail_price/value must be number (got "48.91") x2',
    'GET /activities/{activityUuid} 200: /surprise is not in the document (got "extra") x2',
    'GET /activities/{activityUuid} 200: /title is missing (the document requires it) x2',
    'GET /cities 500: status 500 is not in the document (body {"error":"Internal Server Error"}) x1',
  ], 'each planted departure, counted, with a sample');
  t.ok(drift.every((f: { severity: string }) => f.severity === 'info'), "the upstream's departures do not fail the client's report");
  t.equal(report.verdict, 'pass');
});

t.test('startMockServer({ upstream }) starts the proxy from code', async (t) => {
  const up = await startMock();
  const px = await startMockServer({ upstream: up.api });
  t.teardown(async () => {
    await px.close();
    await up.close();
  });
  t.equal(px.config.upstream, up.api);
  const [direct, proxied] = [await call(`${up.api}/categories`, { headers: H }), await call(`${px.apiUrl}/categories`, { headers: H })];
  t.ok(proxied.body.equals(direct.body), "the upstream's bytes");
  t.equal((await px.control.requests()).requests.length, 1, 'in the journal of the proxy');
});

t.test('a compressed answer passes through as it came, and is checked decompressed', async (t) => {
  const up = await startMock();
  const fake = await startFake(async (req, _body, res) => {
    const direct = await up.app.inject({ url: req.url ?? '/', headers: { 'x-service-application': 'gz' } });
    const a = JSON.parse(direct.body);
    a.zipped_extra = 1;
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-encoding': 'gzip' }).end(gzipSync(JSON.stringify(a)));
  });
  const px = await startProxy(`${fake.origin}${BASE}`);
  t.teardown(async () => {
    await px.close();
    await fake.close();
    await up.close();
  });
  // fetch() would decompress: node:http shows the bytes as sent.
  const got = await new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
    const req = http.get(`${px.api}/activities/${ACTIVITY}`, { headers: { ...H, 'accept-encoding': 'gzip' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
  });
  t.equal(got.headers['content-encoding'], 'gzip', 'the encoding header passed through');
  t.equal(JSON.parse(gunzipSync(got.body).toString()).zipped_extra, 1, 'the gzip bytes as the upstream sent them');
  const report = (await px.app.inject({ url: `/__admin/report?application=${H['x-service-application']}` })).json();
  t.match(report.findings.map((f: { message: string }) => f.message).join('\n'), /GET \/activities\/\{activityUuid\} 200: \/zipped_extra is not in the document \(got 1\)/);
});

t.test("the departures the proxy finds by the mock's document are the vendor's document's too", async (t) => {
  // The vendor's OpenAPI document is test data only (the product judges by its own document):
  // here it confirms that what the proxy calls a departure is one by the vendor's account as well.
  const { ops, check } = loadReference();
  const op = ops.find((o) => o.method === 'GET' && o.path === '/activities/{activityUuid}');
  t.ok(op, 'the vendor documents GET /activities/{activityUuid}');
  const up = await startMock();
  t.teardown(() => up.close());
  const answer = (await up.app.inject({ url: `${BASE}/activities/${ACTIVITY}`, headers: H })).json();
  const problems = (body: unknown) => check(op!, 200, body).map((e) => `${e.instancePath} ${e.message}`);
  // Where the mock knowingly answers otherwise than the vendor's file (test/conformance), it is left aside.
  const known = new Set(problems(answer));
  const planted = { ...answer, retail_price: { ...answer.retail_price, value: String(answer.retail_price.value) }, title: undefined };
  // The missing title is a departure by the mock's document only: the vendor's file does not require it.
  t.same(problems(JSON.parse(JSON.stringify(planted))).filter((p) => !known.has(p)), ['/retail_price/value must be number'], 'the planted price type departs from it, as the proxy found');
});
