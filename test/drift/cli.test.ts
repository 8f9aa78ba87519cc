// `mock-server proxy` and `mock-server drift` as real processes, against upstreams on 127.0.0.1.
import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { systemClock } from '../../src/clock.js';
import { run, start } from '../cli-process.js';
import { tempDir } from '../tmp.js';
import { BASE, deadPort, startFake, startMock } from '../proxy/servers.js';

t.test('drift: exit 0 without drift, 1 with, 2 for bad flags or an upstream that does not answer', async (t) => {
  const up = await startMock({ seed: 3, catalogSize: 5 }, { clock: systemClock() });
  const fake = await startFake(async (req, body, res) => {
    const direct = await up.app.inject({ method: req.method as 'GET', url: req.url ?? '/', headers: req.headers as Record<string, string>, ...(body.length ? { payload: body } : {}) });
    const planted = req.url === `${BASE}/currencies` ? direct.body.replace(/"code":/g, '"iso":') : direct.body;
    res.writeHead(direct.statusCode, { 'content-type': 'application/json' }).end(planted);
  });
  t.teardown(async () => {
    await fake.close();
    await up.close();
  });
  const same = await run(['drift', '--upstream', up.api, '--catalog-size', '5', '--format', 'json']);
  t.equal(same.code, 0, same.stderr);
  const result = JSON.parse(same.stdout);
  t.same(result.differences, []);
  t.ok(result.sampled.length > 50, `${result.sampled.length} operations sampled`);

  const drifted = await run(['drift', '--upstream', `${fake.origin}${BASE}`, '--catalog-size', '5', '--application', 'nightly']);
  t.equal(drifted.code, 1, drifted.stderr);
  t.match(drifted.stdout, /^Drift check of http:\/\/127\.0\.0\.1:\d+\/api\/v3 against the mock at http:\/\/127\.0\.0\.1:\d+\/api\/v3 \(application nightly\)\n\d+ operations sampled, \d+ skipped; DRIFT: 2 difference\(s\) in 1 operation\(s\)/);
  t.match(drifted.stdout, /GET \/currencies\n {4}missing {4}\/\[\]\/code: missing upstream/);
  t.match(drifted.stdout, /extra {6}\/\[\]\/iso: extra upstream/);

  const port = await deadPort();
  for (const [args, message] of [
    [['drift', '--upstream', `http://127.0.0.1:${port}/api/v3`], `mock-server: The upstream http://127.0.0.1:${port} did not answer GET /categories: ECONNREFUSED\n`],
    [['drift'], 'mock-server: drift needs --upstream URL: the real service\'s API base URL, e.g. https://sandbox.example.com/api/v3\n'],
    [['drift', '--upstream', up.api, '--format', 'xml'], 'mock-server: --format: "xml" is not one of text, json, junit\n'],
    [['drift', '--upstream', 'https://user:pw@example.com/api/v3'], "mock-server: upstream: must not carry user:password credentials (the partner's own Authorization header is forwarded)\n"],
    [['--upstream', up.api], 'mock-server: upstream goes with the proxy and drift commands (mock-server proxy --upstream URL)\n'],
    [['proxy', '--upstream', up.api, '--allow-writes'], 'mock-server: --allow-writes goes with the drift command\n'],
  ] as const) {
    const r = await run([...args]);
    t.equal(r.code, 2, args.join(' '));
    t.equal(r.stderr, message);
  }
});

t.test('proxy: the banner names the upstream; --record writes the catalog when the proxy stops', async (t) => {
  const dir = join(tempDir(t, 'cli-recording-'), 'recorded');
  const up = await startMock({ seed: 3, catalogSize: 5 });
  const proxy = await start(['proxy', '--upstream', up.api, '--record', dir]);
  t.teardown(() => up.close());
  t.match(proxy.stdout(), new RegExp(`upstream +${up.api.replace(/[.]/g, '\\.')} \\(every partner request is forwarded`));
  t.match(proxy.stdout(), /recording +the upstream's catalog into .*recorded \(serve it with --fixtures/);
  t.notMatch(proxy.stdout(), /sandbox login/, 'the mock-only lines are left out');
  const res = await fetch(`${proxy.url}/activities/5a002d99-781b-479b-9a9d-9efadfd34ec2`, { headers: { 'x-service-application': 'cli' } });
  t.equal(res.status, 200);
  proxy.child.kill('SIGTERM');
  t.equal(await proxy.exited, 0);
  t.ok(existsSync(join(dir, 'activities.json')), 'written on stop');
  t.match(JSON.parse(readFileSync(join(dir, 'activities.json'), 'utf8')).activities[0], { uuid: '5a002d99-781b-479b-9a9d-9efadfd34ec2' });
});
