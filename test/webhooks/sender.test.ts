import t from 'tap';
import { splitCredentials, WebhookSender } from '../../src/webhooks/sender.js';
import { deadPort, startReceiver } from './receiver.js';

t.test('one POST with the exact body, JSON content type and the given headers', async (t) => {
  const rx = await startReceiver();
  const sender = new WebhookSender();
  t.teardown(async () => {
    sender.close();
    await rx.close();
  });
  const r = await sender.send(`${rx.url}?a=1`, '{"x":"é"}', { 'X-Service-Webhook-Id': 'w1' });
  t.equal(r.status_code, 200);
  t.equal(r.delivered, true);
  t.equal(r.error, undefined);
  t.ok(r.duration_ms >= 0 && r.duration_ms < 5000);
  const got = rx.received[0]!;
  t.equal(got.method, 'POST');
  t.equal(got.url, '/hooks?a=1');
  t.equal(got.body, '{"x":"é"}');
  t.equal(got.headers['content-type'], 'application/json');
  t.equal(got.headers['content-length'], String(Buffer.byteLength('{"x":"é"}')));
  t.equal(got.headers['x-service-webhook-id'], 'w1');
  t.equal(got.headers.authorization, undefined);
  t.equal(got.headers.connection, 'keep-alive');
});

t.test('Basic credentials come from the URL and leave it', async (t) => {
  const rx = await startReceiver();
  const sender = new WebhookSender();
  t.teardown(async () => {
    sender.close();
    await rx.close();
  });
  const url = rx.url.replace('http://', 'http://partner%40acme:p%3Ass@');
  await sender.send(url, '{}', {});
  t.equal(rx.received[0]!.headers.authorization, `Basic ${Buffer.from('partner@acme:p:ss').toString('base64')}`);
  t.equal(rx.received[0]!.url, '/hooks');
  const split = splitCredentials(url);
  t.equal(split.url.toString(), rx.url);
});

t.test('only 200 is delivered: 201, 204 and 500 are failed attempts', async (t) => {
  const codes = [201, 204, 500, 200];
  const rx = await startReceiver((_r, i) => codes[i] ?? 200);
  const sender = new WebhookSender();
  t.teardown(async () => {
    sender.close();
    await rx.close();
  });
  for (const code of codes) {
    const r = await sender.send(rx.url, '{}', {});
    t.equal(r.status_code, code);
    t.equal(r.delivered, code === 200, `${code} ${code === 200 ? 'delivered' : 'failed'}`);
  }
});

t.test('a receiver that does not answer times out; a closed port is refused', async (t) => {
  const rx = await startReceiver(() => 'hang');
  const sender = new WebhookSender({ timeoutMs: 150 });
  t.teardown(async () => {
    sender.close();
    await rx.close();
  });
  t.equal(new WebhookSender().timeoutMs, 5000, '5 s by default');
  const r = await sender.send(rx.url, '{}', {});
  t.same({ ...r, duration_ms: 0 }, { error: 'timeout after 150 ms', duration_ms: 0, delivered: false });
  t.ok(r.duration_ms >= 140, `waited the timeout (${r.duration_ms} ms)`);
  const refused = await sender.send(`http://127.0.0.1:${await deadPort()}/`, '{}', {});
  t.match(refused, { delivered: false, error: /^ECONNREFUSED/ });
  t.equal(refused.status_code, undefined);
  const bad = await sender.send('ftp://example.com/x', '{}', {});
  t.match(bad, { delivered: false, error: /bad URL: unsupported protocol ftp:/, duration_ms: 0 });
  t.match(await sender.send('not a url', '{}', {}), { delivered: false, error: /^bad URL/ });
});

t.test('keep-alive: many sequential posts reuse one connection', async (t) => {
  const rx = await startReceiver();
  const sender = new WebhookSender();
  t.teardown(async () => {
    sender.close();
    await rx.close();
  });
  for (let i = 0; i < 20; i++) {
    const r = await sender.send(rx.url, `{"i":"${i}"}`, {});
    t.equal(r.delivered, true);
  }
  t.equal(rx.received.length, 20);
  t.equal(new Set(rx.received.map((r) => r.remotePort)).size, 1, 'one TCP connection for all of them');
});
