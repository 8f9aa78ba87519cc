// The CLI as a real process: what `npx mock-server` runs, built the way `npm ci` builds it (prepare).
import t, { type Test } from 'tap';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { packageRoot } from '../src/paths.js';
import { build, run, start } from './cli-process.js';
import { tempDir } from './tmp.js';

t.before(build);

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
    const { child, url, exited, stderr } = await start([]);
    const origin = url.replace('/api/v3', '');
    const health = await fetch(`${origin}/__admin/health`);
    t.equal(health.status, 200);
    t.match(await health.json(), { status: 'ok', seed: 1 });
    const currencies = await fetch(`${url}/currencies`, { headers: { 'x-service-application': 'cli-test' } });
    t.equal(currencies.status, 200);
    t.equal((await fetch(`${url}/currencies`)).status, 400, 'header rules apply');
    // A request still in flight when the signal comes is answered before the process exits.
    const inFlight = fetch(`${url}/currencies`, { headers: { 'x-service-application': 'cli-test', prefer: 'delay=800' } });
    await new Promise((r) => setTimeout(r, 200));
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
    for (let i = 0; i < 100 && !lines().some((l) => /completed|200/.test(l)); i++) await new Promise((r) => setTimeout(r, 20));
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

t.test('replay: exit 0 when every expectation held, 1 when one did not', async (t) => {
  // With an admin token, the replay's own server wants it and the replay sends it.
  const pass = await run(['replay', join(packageRoot, 'scenarios/replays/instant-confirmation.yaml'), '--catalog-size', '5'], { MOCK_SERVER_ADMIN_TOKEN: 'own-server-token' });
  t.equal(pass.code, 0, pass.stderr);
  t.match(pass.stdout, /PASS\n$/);
  const fail = await run(['replay', join(packageRoot, 'test/fixtures/replay-fails.yaml'), '--catalog-size', '5']);
  t.equal(fail.code, 1);
  t.match(fail.stdout, /FAILED\n$/);
  // A bad file anywhere in the list stops the replay before the good ones before it are played.
  const bad = join(tempDir(t, 'cli-replay-'), 'bad.yaml');
  writeFileSync(bad, 'steps: []\n');
  const mixed = await run(['replay', join(packageRoot, 'scenarios/replays/instant-confirmation.yaml'), bad, '--catalog-size', '5']);
  t.equal(mixed.code, 2);
  t.equal(mixed.stdout, '', 'nothing was played');
  t.match(mixed.stderr, /^mock-server: replay file .*bad\.yaml: \/steps must be a non-empty list/);
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
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address() as { port: number };
  await new Promise((r) => probe.close(r));
  return port;
}

// Replay: a bad flag or a bad file is one line on stderr and exit 2; trouble at run time is a FAIL
// line in the transcript and exit 1. Never a stack trace.
const noStack = (t: Test, stderr: string, what: string) => t.notMatch(stderr, '    at ', `${what}: no stack trace`);

t.test('replay: a bad --url exits 2 naming the flag and the value', async (t) => {
  const file = join(packageRoot, 'scenarios/replays/pickup.yaml');
  const cases: Array<[string, string]> = [
    ['notaurl', '--url notaurl: not an http(s) URL'],
    ['ftp://127.0.0.1:8080', '--url ftp://127.0.0.1:8080: not an http(s) URL'],
    ['', '--url : not an http(s) URL'],
    ['http://user:pw@127.0.0.1:8080', '--url http://user:pw@127.0.0.1:8080: a user name or password in the URL is not supported'],
    ['http://127.0.0.1:8080/?a=1', '--url http://127.0.0.1:8080/?a=1: must not have a query or fragment'],
  ];
  for (const [url, line] of cases) {
    const r = await run(['replay', file, '--url', url]);
    t.equal(r.code, 2, `--url ${url}: exit 2`);
    t.equal(r.stderr, `mock-server: ${line}\n`, `--url ${url}: one line`);
    t.equal(r.stdout, '', `--url ${url}: nothing played`);
  }
});

t.test('replay: a --url nothing listens on, or that is not a mock-server, exits 2 with one line', async (t) => {
  const file = join(packageRoot, 'scenarios/replays/pickup.yaml');
  const closed = await closedPort();
  const refused = await run(['replay', file, '--url', `http://127.0.0.1:${closed}/`]);
  t.equal(refused.code, 2);
  t.match(refused.stderr, new RegExp(`^mock-server: cannot reach http://127\\.0\\.0\\.1:${closed}: .*ECONNREFUSED.*\\n$`));
  noStack(t, refused.stderr, 'refused');
  // Something that answers 404 to everything (a --url with /api/v3, say).
  const other = await httpServer(t, (_req, res) => res.writeHead(404).end('not here'));
  const notMock = await run(['replay', file, '--url', `${other}/api/v3`]);
  t.equal(notMock.code, 2);
  t.match(notMock.stderr, /^mock-server: http:\/\/127\.0\.0\.1:\d+\/api\/v3 answered 404 to PUT \/__admin\/webhooks\/config: is it a mock-server's origin.*\n$/);
  noStack(t, notMock.stderr, 'not a mock-server');
});

t.test('replay: a bad replay file exits 2 naming the file and the field', async (t) => {
  const dir = tempDir(t, 'cli-replay-');
  const cases: Array<[string, string, string]> = [
    ['control-path', 'steps:\n  - {name: health, control: {path: "__admin/health"}}\n', '/steps/0/control/path must be a path starting with / (got "__admin/health")'],
    ['request-path', 'steps:\n  - {request: {path: currencies}}\n', '/steps/0/request/path must be a path starting with / (got "currencies")'],
    ['captured-path', 'steps:\n  - {request: {path: /currencies}, capture: {p: body.0.code}}\n  - {request: {path: "${p}"}}\n', '/steps/1/request/path must be a path starting with / (got "${p}")'],
    ['base-path', 'base_path: api/v3\nsteps:\n  - {request: {path: /currencies}}\n', '/base_path must be empty or a path starting with / (got "api/v3")'],
    ['null-request', 'steps:\n  - {request: null}\n', '/steps/0/request must be a mapping with path (and method, body, headers) (got null)'],
    ['null-header', 'steps:\n  - {header: null}\n', '/steps/0/header must be a mapping of header names to values (got null)'],
    ['string-step', 'steps:\n  - just a string\n', '/steps/0 must be a mapping with one of request, control, header, wait_webhooks, expect_webhooks (got "just a string")'],
    ['method', 'steps:\n  - {request: {path: /currencies, method: 5}}\n', '/steps/0/request/method must be an HTTP method such as GET, POST, PUT, PATCH or DELETE (got 5)'],
    ['get-body', 'steps:\n  - {request: {path: /carts, body: {a: 1}}}\n', '/steps/0/request/body is not allowed with GET (the default method): give a method such as POST'],
    ['header-name', 'steps:\n  - {request: {path: /currencies, headers: {"a b": x}}}\n', '/steps/0/request/headers/a b is not a valid name (must match pattern "^[!#$%&\'*+.^_`|~0-9A-Za-z-]+$")'],
    ['header-value', 'steps:\n  - {header: {X-A: "one\\ntwo"}}\n', '/steps/0/header/X-A must be a one-line string (got "one\\ntwo")'],
    ['capture-path', 'steps:\n  - {request: {path: /currencies}, capture: {x: 5}}\n', '/steps/0/capture/x must be status, body or a path such as body.items.0.uuid (got 5)'],
    ['undefined-var', 'steps:\n  - {request: {path: /login}, capture: {token: body.access_token}}\n  - {header: {Authorization: "Bearer ${tokn}"}}\n', '/steps/1/header/Authorization uses ${tokn}, which no earlier step captures'],
    ['expect-status', 'steps:\n  - {request: {path: /currencies}, expect: {status: "200"}}\n', '/steps/0/expect/status must be an HTTP status, 100 to 599 (got "200")'],
    ['expect-typo', 'steps:\n  - {request: {path: /currencies}, expect: {stauts: 200}}\n', '/steps/0/expect/stauts is not a known field'],
    ['expect-webhooks', 'steps:\n  - {expect_webhooks: {order_item_status: OK}}\n', '/steps/0/expect_webhooks must be a list of webhook fields to compare (got {"order_item_status":"OK"})'],
    ['wait-webhooks', 'steps:\n  - {wait_webhooks: two}\n', '/steps/0/wait_webhooks must be a whole number >= 0 (got "two")'],
    ['recursive', 'steps:\n  - {request: {method: POST, path: /carts, body: &x [1, *x]}}\n', '/ refers to itself (a recursive YAML alias)'],
    ['application', 'application: "two\\nlines"\nsteps:\n  - {request: {path: /currencies}}\n', '/application must be a non-empty string of printable ASCII (it is sent as a header) (got "two\\nlines")'],
  ];
  // A file is checked before anything is played: the first case runs as the audit ran it (a server of
  // its own), the others against a --url nothing listens on, which a bad file never gets to.
  const closed = await closedPort();
  const results = await Promise.all(
    cases.map(([name, text], k) => {
      const file = join(dir, `${name}.yaml`);
      writeFileSync(file, text);
      return run(['replay', file, ...(k === 0 ? ['--catalog-size', '1'] : ['--url', `http://127.0.0.1:${closed}`])]);
    }),
  );
  for (const [k, [name, , line]] of cases.entries()) {
    const r = results[k]!;
    t.equal(r.code, 2, `${name}: exit 2`);
    t.equal(r.stderr, `mock-server: replay file ${join(dir, `${name}.yaml`)}: ${line}\n`, `${name}: one line naming file and field`);
    noStack(t, r.stderr, name);
  }
});

/** A stand-in for the mock-server, for what a real one does not do: die mid-run, send odd webhooks. */
async function httpServer(t: Test, handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server: Server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

t.test('replay: trouble at run time is a FAIL line and exit 1, not a crash', async (t) => {
  let hook = '';
  const origin = await httpServer(t, (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', async () => {
      if (req.url === '/__admin/webhooks/config') hook = (JSON.parse(body) as { url: string }).url;
      if (req.url === '/api/v3/token') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"token": "one\\ntwo", "code": "x"}');
      if (req.url === '/api/v3/webhook') await fetch(hook, { method: 'POST', body: 'null' });
      if (req.url === '/api/v3/die') return req.socket.destroy();
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const dir = tempDir(t, 'cli-replay-run-');
  const cases: Array<[string, string, RegExp]> = [
    // The server goes away: the step fails and the rest is skipped.
    ['server-dies', 'steps:\n  - {name: die, request: {path: /die}}\n  - {name: after, request: {path: /token}}\n', /^die: GET \/die → no response\n {2}FAIL other side closed; the remaining steps are skipped\nFAILED\n$/m],
    // A captured value fetch refuses as a header value (a newline in it).
    ['bad-header-value', 'steps:\n  - {request: {path: /token}, capture: {token: body.token}}\n  - {header: {Authorization: "Bearer ${token}"}}\n  - {name: use it, request: {path: /token}}\n', /^use it: GET \/token → no response\n {2}FAIL header authorization: not a one-line value once \$\{…\} is filled in; the remaining steps are skipped\nFAILED\n$/m],
    // A webhook whose body is JSON null.
    ['null-webhook', 'steps:\n  - {request: {path: /webhook}}\n  - {wait_webhooks: 1}\n  - {name: check, expect_webhooks: [{order_item_status: OK}]}\n', /^check: webhooks \n {2}FAIL webhooks.0.order_item_status: expected "OK", got undefined\nFAILED\n$/m],
    // A capture of a value that is not there (and its use later, which stays as written).
    ['missing-capture', 'steps:\n  - {request: {path: /token}, capture: {x: body.nope.deeper}}\n  - {request: {path: "/items/${x}"}}\n', /^ {2}FAIL capture x: nothing at body.nope.deeper\n/m],
  ];
  for (const [name, text, transcript] of cases) {
    const file = join(dir, `${name}.yaml`);
    writeFileSync(file, text);
    const r = await run(['replay', file, '--url', origin]);
    t.equal(r.code, 1, `${name}: exit 1`);
    t.match(r.stdout, transcript, `${name}: transcript`);
    t.equal(r.stderr, '', `${name}: nothing on stderr`);
  }
});
