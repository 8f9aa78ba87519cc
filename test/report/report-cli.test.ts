// `mock-server report` as a real process against a running server: formats, --fail-on and exit codes.
import t from 'tap';
import { run, start } from '../cli-process.js';
import { deadPort } from '../webhooks/receiver.js';

t.test('report: text, json, junit, markdown; exit 1 at the threshold, 2 for bad input', async (t) => {
  const server = await start([]);
  t.teardown(() => server.child.kill('SIGKILL'));
  const H = { 'X-Service-Application': 'ci-shop' };
  await fetch(`${server.url}/currencies`, { headers: H });
  await fetch(`${server.url}/cities?country_in=IT`, { headers: H });

  const text = await run(['report', '--url', server.origin, '--application', 'ci-shop']);
  t.equal(text.code, 0, 'warnings only: passes at the default --fail-on error');
  t.match(text.stdout, /^Integration report for application ci-shop\n2 requests since .*; verdict PASS \(fail on error\); booking steps covered 0 of 17\n/);
  t.match(text.stdout, /WARN {3}unknown-query-parameter \(1x\): .*country_in on GET \/cities\n {9}fix: /);
  t.match(text.stdout, /\[ \] login\n/);

  const strict = await run(['report', '--url', server.origin, '--application', 'ci-shop', '--fail-on', 'warning', '--format', 'junit']);
  t.equal(strict.code, 1, 'fails on warnings when asked');
  t.match(strict.stdout, /<testsuites name="mock-server report" tests="\d+" failures="2" skipped="17">/);
  t.match(strict.stdout, /<testcase classname="findings.warning" name="no-version-header"><failure /);
  t.match(strict.stdout, /<testcase classname="coverage" name="login"><skipped /);

  const json = await run(['report', '--url', server.origin, '--format', 'json']);
  t.equal(json.code, 0);
  t.match(JSON.parse(json.stdout), { application: 'ci-shop', verdict: 'pass', findings: Array, coverage: { steps: Array } }, 'the only application seen, without --application');
  const md = await run(['report', '--url', server.origin, '--format', 'markdown', '--fail-on', 'never']);
  t.match(md.stdout, /^# Integration report: ci-shop\n/);
  t.match(md.stdout, /- \*\*warning\*\* `no-version-header` \(2x\)/);

  const nobody = await run(['report', '--url', server.origin, '--application', 'nobody']);
  t.equal(nobody.code, 1, 'an application that made no request fails');
  t.match(nobody.stdout, /^Integration report for application nobody\n0 requests since .*; verdict FAIL .*\nApplication nobody made no request to this server: check the client's base URL and its application header\.\n/);
  const junitNobody = await run(['report', '--url', server.origin, '--application', 'nobody', '--format', 'junit']);
  t.match(junitNobody.stdout, /<testcase classname="requests" name="made requests"><failure /);
  t.equal((await run(['report', '--url', server.origin, '--application', 'nobody', '--fail-on', 'never'])).code, 0, 'unless --fail-on never');
  const long = await run(['report', '--url', server.origin, '--application', 'n'.repeat(15_000), '--fail-on', 'never']);
  t.equal(long.code, 0, 'an application not seen yet: an empty report');
  t.match(long.stdout, /^Integration report for application n{64}… \(15000 characters\)\n/, 'the name clipped (it was printed whole)');
  t.ok(long.stdout.length < 2000, `${long.stdout.length} characters`);

  for (const [args, message] of [
    [['report', '--url', `http://127.0.0.1:${await deadPort()}`], /nothing answers at http:\/\/127\.0\.0\.1:\d+/],
    [['report', '--url', server.origin, '--format', 'xml'], /--format: "xml" is not one of text, json, junit, markdown/],
    [['report', '--url', server.origin, '--fail-on', 'sometimes'], /--fail-on: "sometimes" is not one of error, warning, never/],
    [['--application', 'x'], /--application goes with the report, drift and certify commands/],
  ] as const) {
    const r = await run([...args]);
    t.equal(r.code, 2, args.join(' '));
    t.match(r.stderr, new RegExp(`^mock-server: .*${message.source}.*\\n$`), `one line: ${r.stderr}`);
  }
});
