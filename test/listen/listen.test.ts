// `mock-server listen` with real processes: a sandbox, a listen process and receivers on 127.0.0.1.
import t from 'tap';
import WebSocket from 'ws';
import { createControlClient } from '../../src/control-client.js';
import { itemOf, listener, receiver, run, sandbox, until } from './processes.js';

const SECRET = 'listen-secret';

t.test('a trigger reaches the local receiver through the listener, signed, and the registered receiver too', async (t) => {
  const direct = await receiver(t, SECRET);
  const local = await receiver(t, SECRET);
  const { origin } = await sandbox(t, ['--webhook-url', direct.url, '--webhook-secret', SECRET]);
  const control = createControlClient(`${origin}/__admin`);
  const listen = await listener(t, ['--url', origin, '--forward-to', local.url]);
  t.match(listen.stderr(), `Ready: relaying every application's webhooks from ${origin} to ${local.url} (Ctrl-C to stop)`);
  const { listeners } = await control.webhooks.getConfig();
  t.match(listeners, [{ application: null, connected: true, forward_to: local.url }], 'the control API (and the dashboard) shows the listener');

  const r = await run(['trigger', 'confirmed', '--url', origin]);
  t.equal(r.code, 0, r.stderr);
  const item = itemOf(r.stdout);
  const relayed = await until('the local receiver', () => local.got.find((h) => h.item === item));
  t.match(relayed, { status: 'OK', version: '2', verified: true }, 'signed as the sandbox signs: standardwebhooks verifies it');
  t.match(relayed.headers, { 'content-type': 'application/json', 'user-agent': 'mock-server-webhooks', 'x-service-signature': /^t=\d+,v1=[0-9a-f]{64}$/ });
  t.ok(direct.got.some((h) => h.item === item && h.status === 'OK' && h.verified), 'the registered receiver gets it too');
  await until('the listener line', () => /item [0-9a-f-]{36} {2}PENDING → OK {2}200 {2}[\d.]+ ms/.test(listen.stdout()));
  t.match(listen.stdout(), new RegExp(`^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d  mock-server-trigger  item ${item}  PENDING → OK  200  [\\d.]+ ms$`, 'm'));

  const { deliveries } = await control.deliveries({ order_item_uuid: item });
  const viaListener = deliveries.find((d) => d.target === 'listener');
  t.match(viaListener, { state: 'delivered', attempts: [{ status_code: 200 }] }, 'the attempt through the listener is in the delivery log');
  t.ok(viaListener?.attempts[0]?.headers?.['webhook-signature'], 'with the headers sent');
  t.match(deliveries.find((d) => d.target === undefined), { state: 'delivered' }, "and the receiver's own delivery beside it");
  const report = await control.report('mock-server-trigger');
  t.ok(report.requests > 0, 'the report saw the booking');

  // Ctrl-C: exit 0, and the sandbox stops keeping deliveries for it.
  listen.child.kill('SIGINT');
  t.equal(await listen.exited, 0, 'Ctrl-C exits 0');
  await until('the listener gone', async () => (await control.webhooks.getConfig()).listeners.length === 0);
  t.pass('the listener is no longer a target once stopped');
});

t.test("the local receiver's 500 is a failed attempt, retried on the schedule", async (t) => {
  const local = await receiver(t, SECRET, (n) => (n === 1 ? 500 : 200));
  const { origin } = await sandbox(t, ['--webhook-secret', SECRET]);
  const control = createControlClient(`${origin}/__admin`);
  const listen = await listener(t, ['--url', origin, '--forward-to', local.url, '--application', 'acme-shop', '--format', 'json']);
  const r = await run(['trigger', 'confirmed', '--url', origin, '--application', 'acme-shop']);
  t.equal(r.code, 0, r.stderr);
  const item = itemOf(r.stdout);
  const failed = await until('a failed attempt', async () => (await control.deliveries({ order_item_uuid: item })).deliveries.find((d) => d.attempts.length === 1));
  t.match(failed, { state: 'pending', attempts: [{ status_code: 500 }] });
  t.match(failed.waiting, { reason: 'retry' });
  await control.clock.advance('PT10S', 'acme-shop');
  const delivered = await until('the retry', async () => (await control.deliveries({ order_item_uuid: item })).deliveries.find((d) => d.state === 'delivered'));
  t.match(delivered.attempts, [{ status_code: 500 }, { status_code: 200 }]);
  t.same(local.got.map((h) => h.status), ['OK', 'OK'], 'the same webhook twice');
  t.equal(local.got[0]?.id, local.got[1]?.id, 'with the same webhook-id');
  const lines = listen.stdout().trim().split('\n').map((l) => JSON.parse(l));
  t.match(lines, [
    { application: 'acme-shop', order_item_uuid: item, from: 'PENDING', status: 'OK', local: { status_code: 500 } },
    { application: 'acme-shop', order_item_uuid: item, from: 'PENDING', status: 'OK', local: { status_code: 200 } },
  ], '--format json: one line per event with the local answer');
});

t.test('a listener that was killed gets the moves made meanwhile once it is back, in order', async (t) => {
  const local = await receiver(t, SECRET);
  const { origin } = await sandbox(t, ['--webhook-secret', SECRET]);
  const control = createControlClient(`${origin}/__admin`);
  const first = await listener(t, ['--url', origin, '--forward-to', local.url, '--application', 'acme-shop']);
  const r = await run(['trigger', 'confirmed', '--url', origin, '--application', 'acme-shop']);
  const item = itemOf(r.stdout);
  await until('the confirmation', () => local.got.some((h) => h.item === item));
  // The laptop goes to sleep: the process is gone without a word (no Ctrl-C).
  first.child.kill('SIGKILL');
  await first.exited;
  await control.moveItem(item, 'REFUND_STARTED', 'acme-shop');
  await control.moveItem(item, 'REFUNDED', 'acme-shop');
  // Meanwhile their attempts fail and are retried on the schedule: the clock stands for the time asleep.
  await until('the first attempt', async () => (await control.deliveries({ order_item_uuid: item })).deliveries.some((d) => d.attempts.some((a) => a.error?.startsWith('no listener connected'))));
  await control.clock.advance('PT10S', 'acme-shop');
  await until('the second attempt', async () => (await control.deliveries({ order_item_uuid: item })).deliveries.some((d) => d.attempts.length === 2));
  t.equal(local.got.filter((h) => h.item === item).length, 1, 'nothing reached the receiver while the listener was away');
  const back = await listener(t, ['--url', origin, '--forward-to', local.url, '--application', 'acme-shop']);
  await until('both moves', () => local.got.filter((h) => h.item === item).length === 3);
  t.same(local.got.filter((h) => h.item === item).map((h) => `${h.status} v${h.version}`), ['OK v2', 'REFUND_STARTED v3', 'REFUNDED v4'], 'in order, at once (not at their next retry)');
  const deliveries = (await control.deliveries({ order_item_uuid: item })).deliveries;
  t.match(deliveries.find((d) => d.order_item_version === 3)?.attempts, [{ error: /^no listener connected/ }, { error: /^no listener connected/ }, { status_code: 200 }], 'the failed attempts and the delivery are all in the log');
  await until('the lines', () => back.stdout().includes('REFUND_STARTED → REFUNDED'));
  t.match(back.stdout(), /OK → REFUND_STARTED {2}200[^\n]*\n[^\n]*REFUND_STARTED → REFUNDED {2}200/);
});

t.test('--events, --print-secret, and mistakes', async (t) => {
  const local = await receiver(t, SECRET);
  const { origin } = await sandbox(t);
  const secret = await run(['listen', '--url', origin, '--application', 'acme-shop', '--print-secret']);
  t.equal(secret.code, 0, secret.stderr);
  t.match(secret.stdout, /^whsec_[A-Za-z0-9+/=]+\n$/, 'a sandbox without a secret makes one for the listener');
  const listen = await listener(t, ['--url', origin, '--forward-to', local.url, '--application', 'acme-shop', '--events', 'ko']);
  t.match(listen.stderr(), "application acme-shop's webhooks (KO)");
  const ok = await run(['trigger', 'confirmed', '--url', origin, '--application', 'acme-shop']);
  const ko = await run(['trigger', 'refused', '--url', origin, '--application', 'acme-shop']);
  const item = itemOf(ko.stdout);
  const got = await until('the refusal', () => local.got.find((h) => h.item === item));
  t.match(got, { status: 'KO' });
  const key = secret.stdout.trim();
  const { Webhook } = await import('standardwebhooks');
  t.ok(new Webhook(key), 'the printed secret is a Standard Webhooks key');
  t.notOk(local.got.some((h) => h.item === itemOf(ok.stdout)), 'the confirmation was filtered out');
  for (const [args, message] of [
    [['listen'], 'listen needs --forward-to URL: your local receiver, e.g. http://localhost:3000/hooks'],
    [['listen', '--forward-to', 'ftp://x'], /^--forward-to: /],
    [['listen', '--forward-to', 'localhost:3000', '--events', 'DONE'], /^--events: "DONE" is not an order-item status/],
    [['listen', '--forward-to', 'localhost:3000', '--item', 'x'], '--item goes with the trigger command'],
    [['listen', '--forward-to', 'localhost:3000', '--token', 't', '--client-id', 'c', '--client-secret', 's'], '--token or --client-id/--client-secret: one of them, not both'],
  ] as Array<[string[], string | RegExp]>) {
    const r = await run(args);
    t.equal(r.code, 2, args.join(' '));
    t.match(r.stderr, /^mock-server: [^\n]+\n$/, `one line: ${r.stderr}`);
    t.match(r.stderr.slice('mock-server: '.length), message);
  }
  // The sandbox checks the statuses itself too, for a listener that is not this CLI.
  const refused = await new Promise<{ status: number | undefined; body: string }>((resolve, reject) => {
    const socket = new WebSocket(`${origin.replace(/^http/, 'ws')}/__admin/listen?events=OK,DONE`);
    socket.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c)).on('end', () => resolve({ status: res.statusCode, body }));
    });
    socket.on('open', () => reject(new Error('the sandbox took a listener for status DONE')));
    socket.on('error', () => undefined);
  });
  t.equal(refused.status, 400);
  t.match(JSON.parse(refused.body), { code: String, message: /querystring "events": "DONE" is not an order-item status/ });
});
