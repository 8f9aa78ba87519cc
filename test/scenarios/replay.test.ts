import t, { type Test } from 'tap';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildApp } from '../../src/app.js';
import { systemClock } from '../../src/clock.js';
import { defaults, type Config } from '../../src/config.js';
import { builtinScenariosDir, packageRoot } from '../../src/paths.js';
import { loadReplay, mismatch, replay, replayOrigin } from '../../src/scenarios/replay.js';
import { testCatalog } from '../helper.js';
import { tempDir } from '../tmp.js';

const replays = join(builtinScenariosDir, 'replays');

async function server(t: Test, config: Partial<Config> = {}) {
  const app = await buildApp({ config: { ...defaults, db: 'memory', ...config }, clock: systemClock(), catalog: await testCatalog() });
  await app.listen({ port: 0, host: '127.0.0.1' });
  t.teardown(() => app.close());
  const { port } = app.server.address() as { port: number };
  return `http://127.0.0.1:${port}`;
}

t.test('every shipped replay file passes, and twice gives the same transcript', async (t) => {
  const files = readdirSync(replays).filter((f) => f.endsWith('.yaml'));
  t.ok(files.length >= 6);
  for (const f of files) {
    const first = await replay(join(replays, f), await server(t));
    t.ok(first.ok, `${f}\n${first.transcript.join('\n')}`);
    const second = await replay(join(replays, f), await server(t));
    t.same(second.transcript, first.transcript, `${f}: deterministic`);
  }
});

t.test('every shipped replay file plays as a careful client would: no error or warning in the integration report', async (t) => {
  for (const f of readdirSync(replays).filter((f) => f.endsWith('.yaml'))) {
    const url = await server(t);
    t.ok((await replay(join(replays, f), url)).ok, f);
    const report = (await (await fetch(`${url}/__admin/report`)).json()) as { verdict: string; findings: Array<{ id: string; severity: string }> };
    t.equal(report.verdict, 'pass', f);
    t.same(report.findings.filter((x) => x.severity !== 'info'), [], `${f}: ${report.findings.map((x) => x.id).join(', ')}`);
  }
});

t.test('a replay that fails on purpose says where', async (t) => {
  const result = await replay(join(packageRoot, 'test/fixtures/replay-fails.yaml'), await server(t));
  t.equal(result.ok, false);
  t.match(result.transcript.join('\n'), /FAIL 0.code: expected "XXX", got "USD"/);
  t.match(result.transcript.join('\n'), /FAIL expected status 200/);
  t.equal(result.transcript.at(-1), 'FAILED');
});

t.test('bad replay files are refused naming the file', async (t) => {
  t.throws(() => loadReplay('/nope.yaml'), { userFacing: true, message: /replay file \/nope.yaml/ });
  t.throws(() => loadReplay(join(packageRoot, 'package.json')), { message: /\/steps is required/ });
});

t.test('mismatch compares only the fields given', async (t) => {
  t.equal(mismatch({ a: 1 }, { a: 1, b: 2 }), null);
  t.equal(mismatch([{ a: 1 }], [{ a: 1 }, { a: 3 }]), null);
  t.equal(mismatch({ a: { b: 2 } }, { a: { b: 3 } }), 'a.b: expected 2, got 3');
  t.equal(mismatch({ a: 1 }, null), '(body): expected an object');
});

t.test('replayOrigin: an http(s) URL without trailing slashes, anything else a one-line user error', async (t) => {
  t.equal(replayOrigin('http://127.0.0.1:8080/'), 'http://127.0.0.1:8080');
  t.equal(replayOrigin('https://mock.example.com/sandbox//'), 'https://mock.example.com/sandbox');
  for (const bad of ['notaurl', 'ftp://127.0.0.1:8080', 'file:///tmp', '']) t.throws(() => replayOrigin(bad), { userFacing: true, message: `--url ${bad}: not an http(s) URL` });
});

t.test('a request without an answer in time fails its step and ends the replay, without hanging', async (t) => {
  const file = join(tempDir(t, 'replay-slow-'), 'slow.yaml');
  writeFileSync(file, 'steps:\n  - {name: slow, request: {path: /currencies, headers: {Prefer: delay=4000}}}\n  - {name: never played, request: {path: /currencies}}\n');
  const started = Date.now();
  const result = await replay(file, await server(t), { headerPrefix: 'X-Service-', basePath: '/api/v3', timeoutMs: 1000 });
  t.ok(Date.now() - started < 3500, 'did not wait for the held-back answer');
  t.equal(result.ok, false);
  t.same(result.transcript.slice(1), ['slow: GET /currencies → no response', '  FAIL no answer within 1 s; the remaining steps are skipped', 'FAILED']);
});

t.test('against a server with --admin-token: control calls carry the token, without it one clear line', async (t) => {
  const file = join(replays, 'needs-confirmation.yaml');
  const origin = await server(t, { adminToken: 'replay-s3cret' });
  const opts = { headerPrefix: 'X-Service-', basePath: '/api/v3' };
  const played = await replay(file, origin, { ...opts, adminToken: 'replay-s3cret' });
  t.ok(played.ok, played.transcript.join('\n'));
  t.same(played.transcript, (await replay(file, await server(t))).transcript, 'the same transcript as against an open server');
  await t.rejects(replay(file, origin, opts), {
    userFacing: true,
    message: `${origin} answered 401 to PUT /__admin/webhooks/config: the server wants its admin token: give it with --admin-token or MOCK_SERVER_ADMIN_TOKEN`,
  });
  const wrong = replay(file, origin, { ...opts, adminToken: 'not-it' });
  await t.rejects(wrong, { userFacing: true, message: /answered 401 to PUT \/__admin\/webhooks\/config: the admin token given .* is not the one the server was started with$/ });
  await wrong.catch((e: Error) => t.notMatch(e.message, /not-it|replay-s3cret/, 'no token in the message'));
  // A control step's own Authorization header wins over the token (to test the 401, say).
  const own = join(tempDir(t, 'replay-token-'), 'own-header.yaml');
  writeFileSync(own, 'steps:\n  - {name: wrong token on purpose, control: {path: /__admin/orders, headers: {Authorization: Bearer nope}}, expect: {status: 401, body: {code: "1401"}}}\n  - {name: with the token, control: {path: /__admin/orders}}\n');
  const mixed = await replay(own, origin, { ...opts, adminToken: 'replay-s3cret' });
  t.ok(mixed.ok, mixed.transcript.join('\n'));
});

t.test('a replay against a running server takes its webhook registration back when it ends', async (t) => {
  const origin = await server(t);
  const file = join(replays, 'instant-confirmation.yaml');
  const result = await replay(file, origin);
  t.ok(result.ok, result.transcript.join('\n'));
  const config = await (await fetch(`${origin}/__admin/webhooks/config`)).json();
  t.same(config, { default: null, applications: {}, listeners: [] }, 'no receiver registered for the replay application any more');
});

t.test("a replay moves its own application's clock, never the server's", async (t) => {
  const url = await server(t);
  const before = (await (await fetch(`${url}/__admin/clock`)).json()) as { now: string };
  const result = await replay(join(replays, 'needs-confirmation.yaml'), url);
  t.ok(result.ok, result.transcript.join('\n'));
  const server_ = (await (await fetch(`${url}/__admin/clock`)).json()) as { now: string; offset_ms: number };
  t.ok(Math.abs(Date.parse(server_.now) - Date.parse(before.now)) < 60_000, `the server clock stayed at real time (${server_.now})`);
  const own = (await (await fetch(`${url}/__admin/clock?application=replay-needs-confirmation`)).json()) as { now: string };
  t.match(own.now, /^2026-01-15T10:0[2-3]:/, "the replay's application is at the replay's time (set, then two minutes on)");
});
