// The CLI as a real process: what `npx mock-server` runs, built the way `npm ci` builds it (prepare).
import t from 'tap';
import { readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { packageRoot } from '../src/paths.js';
import { run, start } from './cli-process.js';
import { until } from './until.js';
import { tempDir } from './tmp.js';

t.test('--version and --help', async (t) => {
  const v = await run(['--version']);
  t.equal(v.code, 0);
  t.match(v.stdout, /^\d+\.\d+\.\d+\n$/);
  const h = await run(['--help']);
  t.equal(h.code, 0);
  for (const flag of ['--port N', '--fixtures DIR', '--config FILE', 'MOCK_SERVER_PORT, then PORT', 'Exit codes']) t.match(h.stdout, flag);
});

t.test('user mistakes exit 2 with one line', async (t) => {
  const dir = tempDir(t, 'cli-');
  const badConfig = join(dir, 'bad.json');
  writeFileSync(badConfig, '{"port": "eighty"}');
  for (const args of [['--bogus'], ['--port', 'x'], ['--config', badConfig], ['replay', 'x.yaml'], ['--fixtures', join(dir, 'nope')]]) {
    const r = await run(args);
    t.equal(r.code, 2, args.join(' '));
    t.match(r.stderr, /^mock-server: .+\n$/, `one line: ${r.stderr}`);
  }
});

t.test('serves over HTTP and stops cleanly on SIGTERM and SIGINT', async (t) => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    const { child, url, exited, stdout, stderr } = await start(['--log-level', 'info', '--log-format', 'json']);
    const origin = url.replace('/api/v3', '');
    const health = await fetch(`${origin}/__admin/health`);
    t.equal(health.status, 200);
    t.match(await health.json(), { status: 'ok', seed: 1 });
    const currencies = await fetch(`${url}/currencies`, { headers: { 'x-service-application': 'cli-test' } });
    t.equal(currencies.status, 200);
    t.equal((await fetch(`${url}/currencies`)).status, 400, 'header rules apply');
    // A request still in flight when the signal comes is answered before the process exits.
    const inFlight = fetch(`${url}/currencies`, { headers: { 'x-service-application': 'cli-test', prefer: 'delay=800' } });
    const arrived = () => stdout().split('\n').filter((l) => l.includes('"msg":"incoming request"') && l.includes('/api/v3/currencies')).length === 3;
    await until(`${signal}: the server has the third request`, arrived);
    const signalledAt = Date.now();
    child.kill(signal);
    t.equal((await inFlight).status, 200, `${signal}: the in-flight request is finished`);
    t.equal(await exited, 0, `${signal}: exit 0`);
    // The in-flight request's keep-alive connection must not hold the process up (it did, for 72 s).
    t.ok(Date.now() - signalledAt < 5000, `${signal}: exits within seconds, took ${Date.now() - signalledAt} ms`);
    t.equal(stderr(), '', `${signal}: nothing on stderr (no warnings, no deprecation notices)`);
  }
});

t.test('a port in use exits 2 with a hint', async (t) => {
  const { child, url, exited } = await start([]);
  const port = new URL(url).port;
  const r = await run(['--port', port, '--db', 'memory', '--catalog-size', '1']);
  t.equal(r.code, 2);
  t.equal(r.stderr, `mock-server: cannot listen: port ${port} is in use (try --port 0 for any free port, or another --port)\n`);
  child.kill('SIGTERM');
  await exited;
});

t.test('an unknown flag suggests the nearest one, in one line, exit 2', async (t) => {
  const r = await run(['--prot', '8080']);
  t.equal(r.code, 2);
  t.equal(r.stderr, 'mock-server: unknown option --prot (did you mean --port?)\n');
  t.equal(r.stdout, '');
});

t.test('--log-format: json gives JSON lines, pretty one readable line per request, and a pipe gets JSON by default', async (t) => {
  // Not a terminal (a pipe), colour neither forced nor ruled out by the test runner's environment.
  const env = { FORCE_COLOR: undefined, NO_COLOR: undefined, MOCK_SERVER_LOG_FORMAT: undefined };
  const servers = await Promise.all([start(['--log-level', 'info', '--log-format', 'json'], env), start(['--log-level', 'info', '--log-format', 'pretty'], env), start(['--log-level', 'info'], env)]);
  t.teardown(() => Promise.all(servers.map(({ child, exited }) => (child.kill('SIGTERM'), exited))));
  /** The log lines about /currencies once the request's last one is written. */
  const requestLines = async (s: (typeof servers)[number]) => {
    const res = await fetch(`${s.url}/currencies`, { headers: { 'x-service-application': 'cli-logs' } });
    t.equal(res.status, 200);
    const lines = () => s.stdout().split('\n').filter((l) => l.includes('/currencies') || l.includes('"res":'));
    // The request's last line: JSON's "request completed", or pretty's one line with status and time.
    // (Not just "200": the incoming request's JSON line can hold 200 too, in a time or a port.)
    const done = (l: string) => l.includes('"msg":"request completed"') || / 200 [\d.]+ ms /.test(l);
    for (let i = 0; i < 250 && !lines().some(done); i++) await new Promise((r) => setTimeout(r, 20));
    return { lines: lines(), all: s.stdout() };
  };
  const [json, pretty, byDefault] = servers;
  for (const [name, s] of [['--log-format json', json!], ['no flag, stdout a pipe', byDefault!]] as const) {
    const { all } = await requestLines(s);
    const logs = all.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { msg: string; reqId?: string; req?: { url: string }; res?: { statusCode: number } });
    const incoming = logs.find((l) => l.msg === 'incoming request' && l.req?.url === '/api/v3/currencies');
    t.ok(incoming, `${name}: JSON lines (incoming request)`);
    t.match(logs.find((l) => l.msg === 'request completed' && l.reqId === incoming?.reqId), { res: { statusCode: 200 } }, `${name}: JSON lines (request completed)`);
  }
  const { lines, all } = await requestLines(pretty!);
  t.equal(lines.length, 1, `pretty: one line for the request: ${all}`);
  t.match(lines[0], /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: GET \/api\/v3\/currencies 200 [\d.]+ ms app=cli-logs$/, 'pretty: method, path, status, duration, application');
  t.notMatch(all, /^\{/m, 'pretty: no JSON lines');
  t.notOk(all.includes('\u001b['), 'pretty into a pipe: no colour codes');
});

t.test('the banner says whether the control API is open to the network', async (t) => {
  const servers = await Promise.all([start(['--host', '0.0.0.0']), start(['--host', '0.0.0.0'], { MOCK_SERVER_ADMIN_TOKEN: 'cli-s3cret' }), start([])]);
  t.teardown(() => Promise.all(servers.map(({ child, exited }) => (child.kill('SIGTERM'), exited))));
  const control = async (s: (typeof servers)[number]) => {
    for (let i = 0; i < 100 && !/control API .*\n/.test(s.stdout()); i++) await new Promise((r) => setTimeout(r, 20));
    return /control API .*/.exec(s.stdout())?.[0];
  };
  const [open, protectedOne, loopback] = servers;
  const port = (s: (typeof servers)[number]) => new URL(s.url).port;
  t.equal(await control(open!), `control API   http://0.0.0.0:${port(open!)}/__admin (OPEN to anyone who can reach this address: set --admin-token)`);
  t.equal(await control(protectedOne!), `control API   http://0.0.0.0:${port(protectedOne!)}/__admin (token required)`);
  t.equal(await control(loopback!), `control API   ${loopback!.url.replace('/api/v3', '/__admin')}`, 'loopback: no note');
  // The token from the environment protects the real server; health stays open.
  const admin = `http://127.0.0.1:${port(protectedOne!)}/__admin`;
  t.equal((await fetch(`${admin}/orders`)).status, 401);
  t.equal((await fetch(`${admin}/orders`, { headers: { authorization: 'Bearer cli-s3cret' } })).status, 200);
  t.equal((await fetch(`${admin}/health`)).status, 200);
  // replay --url against it with --admin-token: its control calls carry the token.
  const file = join(packageRoot, 'scenarios/replays/instant-confirmation.yaml');
  const r = await run(['replay', file, '--url', `http://127.0.0.1:${port(protectedOne!)}`, '--admin-token', 'cli-s3cret']);
  t.equal(r.code, 0, `replay --url with --admin-token: exit 0 ${r.stderr}`);
  t.match(r.stdout, /PASS\n$/);
});

t.test("an https webhook URL: the receiver's own certificate is trusted through NODE_EXTRA_CA_CERTS", async (t) => {
  const certFile = join(packageRoot, 'test/webhooks/tls/cert.pem');
  const received: Array<{ order_item_status: string }> = [];
  const hooks = https.createServer({ cert: readFileSync(certFile), key: readFileSync(join(packageRoot, 'test/webhooks/tls/key.pem')) }, (req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      received.push(JSON.parse(body) as { order_item_status: string });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    hooks.closeAllConnections();
    hooks.close();
  });
  const { child, url, exited } = await start(['--webhook-url', `https://localhost:${(hooks.address() as AddressInfo).port}/hook`], { NODE_EXTRA_CA_CERTS: certFile });
  t.teardown(async () => {
    child.kill('SIGTERM');
    await exited;
  });
  const headers: Record<string, string> = { 'x-service-application': 'cli-test', 'content-type': 'application/json' };
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(path.startsWith('/__admin') ? url.replace('/api/v3', path) : `${url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? (JSON.parse(text) as Record<string, unknown> & Array<Record<string, unknown>>) : null;
  };
  await call('POST', '/__admin/clock', { set: '2026-01-15T10:00:00Z' });
  headers.authorization = `Bearer ${(await call('POST', '/login', { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' }))!.access_token as string}`;
  // The fixture that needs confirmation: paid, its item waits PENDING until moved.
  const [day] = (await call('GET', '/activities/0f5821c5-2046-11e7-9cc9-06a7e332783f/dates/2026-01-20'))! as unknown as Array<{ groups: Array<{ slots: Array<{ products: Array<{ product_id: string }> }> }> }>;
  const cart = (await call('POST', '/carts'))!;
  await call('POST', `/carts/${cart.uuid as string}/items`, [{ product_identifier: day!.groups[0]!.slots[0]!.products[0]!.product_id, quantity: 1, language: 'en' }]);
  await call('PUT', `/carts/${cart.uuid as string}/customer`, { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', musement_newsletter: 'NO', allow_profiling: 'NO', thirdparty_newsletter: 'NO', events_related_newsletter: 'NO' });
  const order = (await call('POST', '/orders', { cart_uuid: cart.uuid }))!;
  await call('POST', '/payments/no/payment', { uuid: order.uuid });
  await call('POST', `/__admin/order-items/${(order.items as Array<{ uuid: string }>)[0]!.uuid}/status`, { status: 'OK' });
  for (let i = 0; i < 200 && !received.some((r) => r.order_item_status === 'OK'); i++) await new Promise((r) => setTimeout(r, 25));
  t.ok(received.some((r) => r.order_item_status === 'OK'), `the OK webhook arrived over TLS (got ${JSON.stringify(received.map((r) => r.order_item_status))})`);
  const { deliveries } = (await call('GET', '/__admin/webhooks/deliveries?application=cli-test')) as unknown as { deliveries: Array<{ attempts: Array<{ status_code?: number; error?: string }> }> };
  t.same(deliveries.flatMap((d) => d.attempts.map((a) => a.status_code ?? a.error)).filter((x) => x !== 200), [], 'no attempt failed');
});

/** A port that was free a moment ago: nothing listens there. */

t.test('the banner names the webhook receiver that is used, and where it comes from', async (t) => {
  const db = join(tempDir(t, 'banner-'), 'state.json');
  // start() resolves at the banner's API line; the webhook line follows it.
  const line = async (server: { stdout: () => string }) => {
    for (let i = 0; i < 100 && !/webhook URL.*\n/.test(server.stdout()); i++) await new Promise((r) => setTimeout(r, 50));
    return /webhook URL\s+(.*)/.exec(server.stdout())?.[1];
  };
  const first = await start(['--db', db]);
  t.equal(await line(first), 'none (set --webhook-url, or PUT /__admin/webhooks/config)');
  const put = await fetch(`${first.origin}/__admin/webhooks/config`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: 'http://127.0.0.1:9/stored' }) });
  const setAt = (await put.json()).set_at as string;
  await fetch(`${first.origin}/__admin/webhooks/config`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: 'http://127.0.0.1:9/acme', application: 'acme' }) });
  first.child.kill('SIGTERM');
  await first.exited;

  const withFlag = await start(['--db', db, '--webhook-url', 'http://u:p@127.0.0.1:9/flag', '--webhook-secret', 's']);
  t.equal(await line(withFlag), 'http://u:***@127.0.0.1:9/flag (from --webhook-url, signed with --webhook-secret); 1 application has its own (GET /__admin/webhooks/config)', 'the flag wins at start');
  t.match(await (await fetch(`${withFlag.origin}/__admin/webhooks/config`)).json(), { default: { url: 'http://u:***@127.0.0.1:9/flag', source: 'flag' } }, 'GET /__admin/webhooks/config says the same');
  // For all: drops the application's own.
  await fetch(`${withFlag.origin}/__admin/webhooks/config`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: 'http://127.0.0.1:9/stored' }) });
  withFlag.child.kill('SIGTERM');
  await withFlag.exited;

  const without = await start(['--db', db]);
  t.match(await line(without), /^http:\/\/127\.0\.0\.1:9\/stored \(stored by PUT \/__admin\/webhooks\/config at \d{4}-\d\d-\d\dT[\d:.]+Z, unsigned\)$/, 'a stored receiver, with its time');
  t.ok(setAt, 'the PUT answered the time it stored the receiver');
  without.child.kill('SIGTERM');
  await without.exited;
});

t.test("a run's logs never hold the admin token or a partner's token", async (t) => {
  const secret = 'adm1n-t0ken-for-grep';
  for (const format of ['json', 'pretty']) {
    const server = await start(['--admin-token', secret, '--log-level', 'info', '--log-format', format]);
    const events = new AbortController();
    await fetch(`${server.origin}/__admin/events?access_token=${secret}`, { signal: events.signal }).catch(() => undefined);
    events.abort();
    await fetch(`${server.origin}/__admin/orders`, { headers: { authorization: `Bearer ${secret}` } });
    const login = await fetch(`${server.url}/login`, { method: 'POST', headers: { 'x-service-application': 'grep', 'content-type': 'application/json' }, body: JSON.stringify({ client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' }) });
    const token = ((await login.json()) as { access_token: string }).access_token;
    await fetch(`${server.url}/orders?access_token=${token}`, { headers: { 'x-service-application': 'grep', authorization: `Bearer ${token}` } });
    server.child.kill('SIGTERM');
    await server.exited;
    const logs = server.stdout() + server.stderr();
    t.match(logs, /access_token=\*\*\*/, `${format}: the requests were logged, the token's value hidden`);
    // (The banner does show the built-in sandbox client's secret: it is public, the same for everyone.)
    for (const s of [secret, token]) t.notOk(logs.includes(s), `${format}: ${s.slice(0, 12)}… is not in the logs`);
  }
});
