// --log-format in-process: what the logger options of src/logging.ts write for requests, scenario steps and webhook attempts.
import t, { type Test } from 'tap';
import { buildApp } from '../../src/app.js';
import { defaults, type Config } from '../../src/config.js';
import { fixedClock } from '../../src/clock.js';
import { loggerOptions, useColor } from '../../src/logging.js';
import { testCatalog } from '../helper.js';

const INSTANT = '4e451a8a-2ee5-493f-aa12-a39f13d7253e';

/** An app logging through loggerOptions into `out` (not a terminal: no colour). */
async function appWithLogs(t: Test, config: Partial<Config>) {
  const out: string[] = [];
  const full: Config = { ...defaults, seed: 1, catalogSize: 20, db: 'memory', ...config };
  const app = await buildApp({ config: full, clock: fixedClock('2026-01-15T10:00:00Z'), catalog: await testCatalog(), logger: await loggerOptions(full, { destination: { write: (s: string) => out.push(s) }, env: {} }) });
  t.teardown(() => app.close());
  await app.ready();
  /** Everything written so far, as lines. */
  const lines = () => out.join('').split('\n').filter((l) => l !== '');
  return { app, lines };
}

t.test('pretty: a request is one line with method, path, status, duration and application', async (t) => {
  const { app, lines } = await appWithLogs(t, { logFormat: 'pretty', headerPrefix: 'X-Acme-' });
  await app.inject({ url: '/api/v3/currencies?x=1', headers: { 'x-acme-application': 'shop' } });
  await app.inject({ url: '/api/v3/currencies' });
  t.equal(lines().length, 2, `one line per request: ${lines().join('\n')}`);
  t.match(lines()[0], /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: GET \/api\/v3\/currencies\?x=1 200 [\d.]+ ms app=shop$/);
  t.match(lines()[1], /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: GET \/api\/v3\/currencies 400 [\d.]+ ms$/, 'no application header: none shown');
  t.notOk(lines().join('\n').includes('\u001b['), 'no colour when not writing to a terminal');
});

t.test('json: pino lines with the request logged as it comes and when it completes', async (t) => {
  const { app, lines } = await appWithLogs(t, { logFormat: 'json' });
  await app.inject({ url: '/api/v3/currencies', headers: { 'x-service-application': 'shop' } });
  const parsed = lines().map((l) => JSON.parse(l) as Record<string, unknown>);
  t.same(parsed.map((l) => l.msg), ['incoming request', 'request completed']);
  t.match(parsed[1], { level: 30, res: { statusCode: 200 }, responseTime: Number });
});

t.test('pretty: a scenario step and the webhook attempt it causes are one line each', async (t) => {
  const { app, lines } = await appWithLogs(t, { logFormat: 'pretty', webhookUrl: 'http://hook:s3cret@127.0.0.1:9/hook' });
  const headers: Record<string, string> = { 'x-service-application': 'shop' };
  const call = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) => {
    const res = await app.inject({ method, url: url.startsWith('/__admin') ? url : `/api/v3${url}`, headers, ...(payload === undefined ? {} : { payload }) });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json();
  };
  headers.authorization = `Bearer ${(await call('POST', '/login', { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' })).access_token}`;
  const [day] = await call('GET', `/activities/${INSTANT}/dates/2026-01-20`);
  const cart = await call('POST', '/carts');
  await call('POST', `/carts/${cart.uuid}/items`, [{ product_identifier: day.groups[0].slots[0].products[0].product_id, quantity: 1 }]);
  await call('PUT', `/carts/${cart.uuid}/customer`, { firstname: 'Ada', lastname: 'Lovelace', email: 'a@example.com', musement_newsletter: 'NO', allow_profiling: 'NO', thirdparty_newsletter: 'NO', events_related_newsletter: 'NO' });
  const order = await call('POST', '/orders', { cart_uuid: cart.uuid });
  const item = (await call('POST', '/payments/no/payment', { uuid: order.uuid })).items[0].uuid as string;
  await call('POST', '/__admin/scenarios/cancellation-error-kept/run', { order_item_uuid: item });
  await app.webhooks.idle();
  const text = lines().join('\n');
  t.match(text, new RegExp(`\\] INFO: scenario cancellation-error-kept: item ${item} OK → REFUND_STARTED\\n`), 'the step, from → to');
  // The payment's OK webhook is first in the item's queue; REFUND_STARTED waits behind it.
  t.match(text, new RegExp(`\\] WARN: webhook OK for item ${item} → http://hook:\\*\\*\\*@127\\.0\\.0\\.1:9/hook: .*ECONNREFUSED.* after [\\d.]+ ms, next attempt 2026-01-15T10:00:10\\.000Z$`, 'm'), 'the attempt that failed');
  t.notMatch(text, /s3cret/, 'the receiver password is hidden');
  t.notMatch(text, /\{"(webhook|scenario_step)"/, 'the structured data stays out of pretty lines');
});

t.test('colour: on a terminal, off with NO_COLOR, forced with FORCE_COLOR', async (t) => {
  t.equal(useColor(true, {}), true);
  t.equal(useColor(false, {}), false);
  t.equal(useColor(true, { NO_COLOR: '1' }), false);
  t.equal(useColor(true, { TERM: 'dumb' }), false);
  t.equal(useColor(false, { FORCE_COLOR: '1' }), true);
  t.equal(useColor(true, { FORCE_COLOR: '0' }), false);
});

t.test('secrets never reach the log: query tokens are hidden in every format', async (t) => {
  for (const logFormat of ['json', 'pretty'] as const) {
    const { app, lines } = await appWithLogs(t, { logFormat, adminToken: 'adm1n-t0ken-value' });
    await app.inject({ url: '/__admin/orders?access_token=adm1n-t0ken-value' });
    await app.inject({ url: '/api/v3/currencies?x=1&client_secret=sandbox-secret&token=tok3n', headers: { 'x-service-application': 'shop', authorization: 'Bearer partner-tok3n' } });
    const all = lines().join('\n');
    t.ok(lines().length >= 2, `${logFormat}: the requests were logged`);
    for (const secret of ['adm1n-t0ken-value', 'sandbox-secret', 'tok3n']) t.notOk(all.includes(secret), `${logFormat}: ${secret} is not in the log`);
    t.match(all, /access_token=\*\*\*/, `${logFormat}: the parameter is named, its value hidden`);
    t.match(all, /x=1&client_secret=\*\*\*&token=\*\*\*/, `${logFormat}: other parameters stay`);
  }
});
