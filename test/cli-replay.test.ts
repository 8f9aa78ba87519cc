// `mock-server replay` as a real process: exit codes, one-line errors for bad flags and files, and
// FAIL lines (never a crash) for trouble at run time.
import t, { type Test } from 'tap';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { packageRoot } from '../src/paths.js';
import { loadReplay } from '../src/scenarios/replay.js';
import { run } from './cli-process.js';
import { tempDir } from './tmp.js';

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
  // Each case as the CLI checks it (loadReplay, before anything runs): the message it prints.
  for (const [name, text, line] of cases) {
    const file = join(dir, `${name}.yaml`);
    writeFileSync(file, text);
    t.throws(() => loadReplay(file), { message: `replay file ${file}: ${line}` }, name);
  }
  // And three of them through the CLI itself: one line, exit 2. The first as the audit ran it (a
  // server of its own), the others against a --url nothing listens on, which a bad file never gets to.
  const closed = await closedPort();
  const picked = [cases[0]!, cases[8]!, cases[17]!];
  const results = await Promise.all(
    picked.map(([name], k) => run(['replay', join(dir, `${name}.yaml`), ...(k === 0 ? ['--catalog-size', '1'] : ['--url', `http://127.0.0.1:${closed}`])])),
  );
  for (const [k, [name, , line]] of picked.entries()) {
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
