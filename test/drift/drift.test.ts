/**
 * mock-server drift: the mock's answers against an upstream's, on 127.0.0.1. Two mocks (another
 * seed, another catalog) show no drift; a fake service that departs from the document in planted
 * ways shows each of them and nothing else; an upstream that does not answer is one line.
 */
import t from 'tap';
import { defaults, type Config } from '../../src/config.js';
import { runDrift, DriftUnavailable } from '../../src/drift/run.js';
import { formatDrift } from '../../src/drift/format.js';
import { systemClock } from '../../src/clock.js';
import { BASE, deadPort, startFake, startMock } from '../proxy/servers.js';

const flags = { application: 'drift-test', format: 'text' as const, allowWrites: true };
const config = (upstream: string): Config => ({ ...defaults, seed: 1, catalogSize: 5, db: 'memory', upstream });

t.test('two mocks of different catalogs: every operation sampled, no drift', async (t) => {
  const up = await startMock({ seed: 7, catalogSize: 8 }, { clock: systemClock() });
  t.teardown(() => up.close());
  const r = await runDrift(config(up.api), null, flags);
  t.same(r.differences, [], formatDrift(r, 'text'));
  t.ok(r.sampled.length >= 50, `${r.sampled.length} operations sampled`);
  const ops = r.sampled.map((s) => s.operation);
  for (const op of ['GET /activities/{activityUuid}', 'GET /activities/{activityUuid}/dates/{day}', 'GET /categories/{categoryId}', 'GET /cities/{cityId}/activities', 'POST /carts/{cartUuid}/items', 'GET /carts/{cartUuid}/customer/schema', 'GET /activities/{activityUuid} (unknown uuid)', 'GET /categories (no application header)']) {
    t.ok(ops.includes(op), `${op} sampled`);
  }
  t.same(r.sampled.find((s) => s.operation === 'POST /carts/{cartUuid}/items'), { operation: 'POST /carts/{cartUuid}/items', mock: 200, upstream: 200 }, 'an item was added on both sides');
  t.same(r.sampled.find((s) => s.operation === 'GET /categories (no application header)'), { operation: 'GET /categories (no application header)', mock: 400, upstream: 400 });
  t.match(formatDrift(r, 'text'), /operations sampled, \d+ skipped; no drift/);
});

t.test('a service that departs from the document: each planted difference is found, and nothing else', async (t) => {
  const up = await startMock({ seed: 2, catalogSize: 5 }, { clock: systemClock() });
  const fake = await startFake(async (req, body, res) => {
    const url = req.url ?? '/';
    const direct = await up.app.inject({ method: req.method as 'GET', url, headers: req.headers as Record<string, string>, ...(body.length ? { payload: body } : {}) });
    let status = direct.statusCode;
    let json = direct.body ? JSON.parse(direct.body) : undefined;
    const path = url.slice(BASE.length).split('?')[0] ?? '';
    if (/^\/activities\/[0-9a-f-]{36}$/.test(path) && status === 200) {
      json.surprise = { nested: true };
      json.reviews_number = String(json.reviews_number);
      json.booking_type = 'CALENDAR-SOMETHING';
      delete json.uuid;
    } else if (path === '/categories' && status === 200) json = json.map((c: { id: number }) => ({ ...c, id: String(c.id) }));
    else if (path === '/cities') [status, json] = [500, { code: '500', message: 'Internal Server Error' }];
    else if (path.includes('00000000-0000-4000-8000-000000000000')) json = { error: 'not found' };
    res.writeHead(status, { 'content-type': 'application/json' }).end(json === undefined ? '' : JSON.stringify(json));
  });
  t.teardown(async () => {
    await fake.close();
    await up.close();
  });
  const r = await runDrift(config(`${fake.origin}${BASE}`), null, flags);
  const found = r.differences.map((d) => `${d.operation} ${d.kind} ${d.path} mock=${d.mock} upstream=${d.upstream}`).sort();
  t.same(found, [
    'GET /activities/{activityUuid} (unknown uuid) error-body  mock={code, message} strings upstream={"error":"not found"}',
    'GET /activities/{activityUuid} enum /booking_type mock=CALENDAR-TIMESLOTS, CALENDAR-NO-TIMESLOTS, NO-CALENDAR-FIXED-END, NO-CALENDAR-FIXED-VALIDITY upstream=CALENDAR-SOMETHING',
    'GET /activities/{activityUuid} extra /surprise mock=absent upstream=object',
    'GET /activities/{activityUuid} missing /uuid mock=string upstream=absent',
    'GET /activities/{activityUuid} type /reviews_number mock=number upstream=string',
    'GET /categories type /[]/id mock=number upstream=string',
    'GET /cities status  mock=200 upstream=500',
  ], formatDrift(r, 'text'));
  const text = formatDrift(r, 'text');
  t.match(text, /DRIFT: 7 difference\(s\) in 4 operation\(s\)/);
  t.match(text, /\/surprise: extra upstream \(object; neither the mock nor its document has it\)/);
  const junit = formatDrift(r, 'junit');
  t.match(junit, /<testsuites name="mock-server drift" tests="\d+" failures="4"/);
  t.match(junit, /<testcase classname="drift" name="GET \/cities"><failure message="1 difference\(s\)">status: the mock answers 200, the upstream 500<\/failure>/);
  t.same(JSON.parse(formatDrift(r, 'json')).differences.length, 7);
});

t.test('an upstream that does not answer: one line, no result', async (t) => {
  const port = await deadPort();
  await t.rejects(runDrift(config(`http://127.0.0.1:${port}/api/v3`), null, flags), new DriftUnavailable(`The upstream http://127.0.0.1:${port} did not answer GET /categories: ECONNREFUSED`));
});

t.test('--url: the mock compared is one already running', async (t) => {
  const up = await startMock({ seed: 4, catalogSize: 5 }, { clock: systemClock() });
  const mock = await startMock({ seed: 5, catalogSize: 5 }, { clock: systemClock() });
  t.teardown(async () => {
    await mock.close();
    await up.close();
  });
  const r = await runDrift(config(up.api), mock.origin, { ...flags, allowWrites: false });
  t.equal(r.mock, mock.api, 'the running mock was compared');
  t.same(r.differences, [], formatDrift(r, 'text'));
  t.notOk(r.sampled.some((s) => s.operation.startsWith('POST')), 'nothing written without --allow-writes');
  t.equal((await mock.app.inject({ url: '/__admin/requests?application=drift-test&limit=1000' })).json().requests.filter((x: { method: string }) => x.method !== 'GET').length, 0, 'only reads reached the mock');
});
