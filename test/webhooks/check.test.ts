import t from 'tap';
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { checkReceiver, ReceiverUnreachable, type CheckReport } from '../../src/webhooks/check.js';
import { formatCheckReport } from '../../src/webhooks/check-format.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildWebhookApp, deadPort, startReceiver } from './receiver.js';

const SECRET = 'partner-secret';
const PREFIX = 'X-Service-';

/** What a receiver does with a request: its answer. */
type Behaviour = (req: http.IncomingMessage, body: string) => number;

async function receiver(behaviour: Behaviour) {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => res.writeHead(behaviour(req, body)).end());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, close: () => new Promise((r) => (server.closeAllConnections(), server.close(r))) };
}

/** The receiver docs/webhooks.md describes: vendor signature with a 5-minute window, Basic credentials, dedupe, newest version wins. */
const careful: Behaviour = (req, body) => {
  if (req.headers.authorization !== `Basic ${Buffer.from('partner:pa55').toString('base64')}`) return 401;
  const sig = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(req.headers['x-service-signature'] ?? ''));
  if (!sig) return 400;
  const expected = createHmac('sha256', SECRET).update(`${sig[1]}.${body}`).digest();
  if (!timingSafeEqual(expected, Buffer.from(sig[2] as string, 'hex'))) return 400;
  if (Math.abs(Date.now() / 1000 - Number(sig[1])) > 300) return 400;
  return 200;
};

const byId = (r: CheckReport) => Object.fromEntries(r.checks.map((c) => [c.id, c.result]));

t.test('a careful receiver passes every check', async (t) => {
  const rx = await receiver(careful);
  t.teardown(rx.close);
  const report = await checkReceiver({ url: rx.url, secret: SECRET, basic: 'partner:pa55', headerPrefix: PREFIX });
  t.same(byId(report), {
    'signed-delivery': 'passed', redelivery: 'passed', 'tampered-vendor': 'passed', 'stale-vendor': 'passed', 'tampered-standard': 'passed',
    'stale-standard': 'passed', 'basic-wrong': 'passed', 'out-of-order': 'passed', 'every-status': 'passed',
  });
  t.equal(report.passed, true);
  t.equal(report.receiver, rx.url.replace('http://', 'http://partner:***@'), 'the report names the receiver, password hidden');
});

t.test('a receiver that verifies Standard Webhooks with the standardwebhooks package passes the signature checks too', async (t) => {
  const wh = new Webhook(`whsec_${Buffer.from(SECRET).toString('base64')}`);
  const rx = await receiver((req, body) => {
    try {
      wh.verify(body, req.headers as Record<string, string>);
      return 200;
    } catch {
      return 400;
    }
  });
  t.teardown(rx.close);
  const report = await checkReceiver({ url: rx.url, secret: SECRET, headerPrefix: PREFIX });
  t.match(byId(report), { 'tampered-vendor': 'passed', 'tampered-standard': 'passed', 'stale-vendor': 'passed', 'stale-standard': 'passed', 'basic-wrong': 'skipped' });
  t.equal(report.passed, true);
});

t.test('a receiver that takes anything fails the signature and credential checks, with what to fix', async (t) => {
  const rx = await receiver(() => 200);
  t.teardown(rx.close);
  const report = await checkReceiver({ url: rx.url, secret: SECRET, basic: 'partner:pa55', headerPrefix: PREFIX });
  t.match(byId(report), { 'signed-delivery': 'passed', 'tampered-vendor': 'failed', 'stale-vendor': 'failed', 'tampered-standard': 'failed', 'stale-standard': 'failed', 'basic-wrong': 'failed' });
  t.equal(report.passed, false);
  const tampered = report.checks.find((c) => c.id === 'tampered-vendor');
  t.match(tampered, { sent: [/changed to REFUNDED/], got: [/^200 in /], advice: /raw body bytes/ });
  const text = formatCheckReport(report, 'text');
  t.match(text, /^Webhook receiver check: http:\/\/partner:\*\*\*@127\.0\.0\.1/, 'the password is hidden');
  t.match(text, /FAIL A tampered body under the original signature is refused \(X-Service-Signature\)\n {5}sent: .*\n {5}got: {2}200 in .*\n {5}fix: {2}/);
  t.match(text, /FAILED: 4 passed, 5 failed, 0 skipped$/);
  const junit = formatCheckReport(report, 'junit');
  t.match(junit, /<testsuites name="mock-server webhooks check" tests="9" failures="5" skipped="0">/);
  t.match(junit, /<testcase classname="webhooks.check" name="tampered-vendor: [^"]*"><failure message="[^"]*raw body bytes/);
  t.same(JSON.parse(formatCheckReport(report, 'json')), report);
});

t.test('redeliveries refused, an old version refused, a status refused: each its own failure', async (t) => {
  const seen = new Set<string>();
  const newest = new Map<string, number>();
  const rx = await receiver((_req, body) => {
    const p = JSON.parse(body) as { order_item_uuid: string; order_item_version: string; order_item_status: string };
    // Unsigned deliveries carry no delivery id: the item and its version name one.
    const id = `${p.order_item_uuid}@${p.order_item_version}`;
    if (seen.has(id)) return 409;
    seen.add(id);
    if (Number(p.order_item_version) < (newest.get(p.order_item_uuid) ?? 0)) return 422;
    newest.set(p.order_item_uuid, Number(p.order_item_version));
    return p.order_item_status === 'CANCELLATION_ERROR' ? 400 : 200;
  });
  t.teardown(rx.close);
  const report = await checkReceiver({ url: rx.url, headerPrefix: PREFIX });
  t.match(byId(report), { 'signed-delivery': 'passed', redelivery: 'failed', 'out-of-order': 'failed', 'every-status': 'failed', 'tampered-vendor': 'skipped', 'basic-wrong': 'skipped' });
  t.match(report.checks.find((c) => c.id === 'every-status')?.advice, /refused: CANCELLATION_ERROR/);
  t.match(report.checks.find((c) => c.id === 'tampered-vendor')?.advice, /--secret/);
});

t.test('a receiver nobody answers for is no check result but an error', async (t) => {
  const err = await checkReceiver({ url: `http://127.0.0.1:${await deadPort()}/hooks`, headerPrefix: PREFIX }).catch((e: unknown) => e);
  t.type(err, ReceiverUnreachable);
  t.match((err as Error).message, /^nothing answers at http:\/\/127\.0\.0\.1:\d+\/hooks: ECONNREFUSED/);
});

t.test('POST /__admin/webhooks/check runs the same checks on a URL, or on the configured receiver and secret', async (t) => {
  const rx = await receiver((req, body) => (careful({ ...req, headers: { ...req.headers, authorization: `Basic ${Buffer.from('partner:pa55').toString('base64')}` } } as http.IncomingMessage, body)));
  t.teardown(rx.close);
  const app = await buildWebhookApp();
  t.teardown(() => app.close());
  const post = (payload: object) => app.inject({ method: 'POST', url: '/__admin/webhooks/check', payload });
  t.match((await post({})).json(), { code: '0', message: /body "url" is needed: no receiver is configured/ });
  await app.inject({ method: 'PUT', url: '/__admin/webhooks/config', payload: { url: rx.url, secret: SECRET, application: 'shop' } });
  const configured = await post({ application: 'shop' });
  t.equal(configured.statusCode, 200);
  t.match(configured.json(), { passed: true, checks: [{ id: 'signed-delivery', result: 'passed' }] });
  t.equal(configured.json().checks.find((c: { id: string }) => c.id === 'tampered-vendor').result, 'passed', "the application's secret was used");
  const unsigned = await post({ url: rx.url });
  t.equal(unsigned.json().checks[0].result, 'failed', 'a URL given without a secret sends unsigned deliveries, which this receiver refuses');
  const dead = await post({ url: `http://127.0.0.1:${await deadPort()}/` });
  t.equal(dead.statusCode, 502);
  t.match(dead.json(), { code: '0', message: /nothing answers at/ });
  t.equal((await post({ url: 'ftp://x' })).statusCode, 400);
});

t.test('a receiver whose answers trickle in: each request ends at its deadline, the whole check at its bound', async (t) => {
  const rx = await startReceiver(() => 'trickle');
  t.teardown(rx.close);
  const t0 = performance.now();
  const report = await Promise.race([checkReceiver({ url: rx.url, secret: SECRET, headerPrefix: PREFIX, deadlineMs: 400, totalMs: 1000 }), sleep(5000).then(() => null)]);
  const ms = performance.now() - t0;
  if (!report) return t.fail('the check did not end within 5 s');
  t.ok(ms < 2500, `answered in ${ms.toFixed(0)} ms`);
  t.match(report.checks[0], { id: 'signed-delivery', result: 'failed', got: [/^no answer: timeout after 400 ms \(the deadline of an attempt\): status 200 came, its body did not end/] });
  t.match(report.checks.at(-1), { id: 'every-status', result: 'skipped', got: [], advice: /^Not run: the check stops after 1000 ms in all/ });
  t.equal(report.passed, false);
  t.ok(rx.received.length <= 4, `${rx.received.length} requests made before the bound`);
});

t.test('POST /__admin/webhooks/check against a trickling receiver answers within its bound (3 deadlines)', async (t) => {
  const rx = await startReceiver(() => 'trickle');
  t.teardown(rx.close);
  const app = await buildWebhookApp({ webhooks: { deadlineMs: 300 } });
  t.teardown(() => app.close());
  const t0 = performance.now();
  const res = await Promise.race([app.inject({ method: 'POST', url: '/__admin/webhooks/check', payload: { url: rx.url } }), sleep(5000).then(() => null)]);
  const ms = performance.now() - t0;
  if (!res) return t.fail('no answer within 5 s');
  t.equal(res.statusCode, 200);
  t.ok(ms < 2500, `answered in ${ms.toFixed(0)} ms`);
  t.match(res.json(), { passed: false, checks: [{ id: 'signed-delivery', result: 'failed', got: [/timeout after 300 ms/] }] });
});
