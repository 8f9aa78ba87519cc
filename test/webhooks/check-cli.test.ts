// `mock-server webhooks check` as a real process: exit 0 when every check held, 1 when one failed, 2 for bad input.
import t from 'tap';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { run } from '../cli-process.js';
import { deadPort } from './receiver.js';

t.test('exit codes and formats', async (t) => {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise((r) => (server.closeAllConnections(), server.close(r))));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;

  const unsigned = await run(['webhooks', 'check', '--url', url]);
  t.equal(unsigned.code, 0, 'without a secret the signature checks are skipped, the rest pass');
  t.match(unsigned.stdout, /SKIP A tampered body .*\n {5}Give the secret \(--secret\)/);
  t.match(unsigned.stdout, /PASSED: 4 passed, 0 failed, 5 skipped\n$/);

  const signed = await run(['webhooks', 'check', '--url', url, '--secret', 's3cret', '--format', 'junit']);
  t.equal(signed.code, 1, 'a receiver that does not verify signatures fails');
  t.match(signed.stdout, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="mock-server webhooks check" tests="9" failures="4" skipped="1">/);
  const json = await run(['webhooks', 'check', '--url', url, '--basic', 'u:p', '--format', 'json']);
  t.equal(json.code, 1);
  t.match(JSON.parse(json.stdout), { passed: false, checks: [{ id: 'signed-delivery', result: 'passed' }] });

  for (const [args, message] of [
    [['webhooks', 'check'], /webhooks check needs --url/],
    [['webhooks', 'check', '--url', 'ftp://x'], /--url: "ftp:\/\/x" must be an http or https URL/],
    [['webhooks', 'check', '--url', url, '--format', 'xml'], /--format: "xml" is not one of text, json, junit/],
    [['webhooks', 'check', '--url', url, '--basic', 'nopassword'], /--basic: expected user:password/],
    [['webhooks', 'nope'], /webhooks takes one subcommand/],
    [['--secret', 'x'], /--secret goes with the webhooks check command/],
    [['webhooks', 'check', '--url', `http://127.0.0.1:${await deadPort()}/`], /nothing answers at/],
  ] as const) {
    const r = await run([...args]);
    t.equal(r.code, 2, args.join(' '));
    t.match(r.stderr, new RegExp(`^mock-server: .*${message.source}.*\\n$`), `one line: ${r.stderr}`);
  }
});
