import t from 'tap';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { WebhookSender } from '../../src/webhooks/sender.js';
import { splitCredentials } from '../../src/webhooks/url.js';
import { deadPort, startReceiver } from './receiver.js';
import { startForwardProxy } from '../proxy/servers.js';
import { until } from '../until.js';

t.test('one POST with the exact body, JSON content type and the given headers', async (t) => {
  const rx = await startReceiver();
  const sender = new WebhookSender();
  t.teardown(async () => {
    await sender.close();
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
  t.not(got.headers.connection, 'close', 'the connection stays open for the next one');
});

t.test('Basic credentials come from the URL and leave it', async (t) => {
  const rx = await startReceiver();
  const sender = new WebhookSender();
  t.teardown(async () => {
    await sender.close();
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
    await sender.close();
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
    await sender.close();
    await rx.close();
  });
  t.equal(new WebhookSender().timeoutMs, 5000, '5 s by default');
  const r = await sender.send(rx.url, '{}', {});
  t.same({ ...r, duration_ms: 0 }, { error: 'timeout after 150 ms', duration_ms: 0, delivered: false, headers: { 'content-type': 'application/json', 'user-agent': 'mock-server-webhooks' } });
  t.ok(r.duration_ms >= 140, `waited the timeout (${r.duration_ms} ms)`);
  const refused = await sender.send(`http://127.0.0.1:${await deadPort()}/`, '{}', {});
  t.match(refused, { delivered: false, error: /^ECONNREFUSED/ });
  t.equal(refused.status_code, undefined);
  const bad = await sender.send('ftp://example.com/x', '{}', {});
  t.match(bad, { delivered: false, error: /bad URL: unsupported protocol ftp:/, duration_ms: 0 });
  t.equal(bad.headers, undefined, 'no request, no headers');
  t.match(await sender.send('not a url', '{}', {}), { delivered: false, error: /^bad URL/ });
});

t.test('keep-alive: many sequential posts reuse one connection', async (t) => {
  const rx = await startReceiver();
  const sender = new WebhookSender();
  t.teardown(async () => {
    await sender.close();
    await rx.close();
  });
  for (let i = 0; i < 20; i++) {
    const r = await sender.send(rx.url, `{"i":"${i}"}`, {});
    t.equal(r.delivered, true);
  }
  t.equal(rx.received.length, 20);
  // undici may open a second connection while the first is handed back to its pool; never one each.
  const connections = new Set(rx.received.map((r) => r.remotePort)).size;
  t.ok(connections <= 2, `20 posts over ${connections} connection(s)`);
});

t.test('deliveries go through the proxy HTTP_PROXY and HTTPS_PROXY name, except to NO_PROXY hosts', async (t) => {
  const rx = await startReceiver();
  const proxy = await startForwardProxy();
  const through = new WebhookSender({ proxy: { httpProxy: proxy.url, httpsProxy: proxy.url } });
  const bypass = new WebhookSender({ proxy: { httpProxy: proxy.url, noProxy: '127.0.0.1' } });
  t.teardown(async () => {
    await through.close();
    await bypass.close();
    await proxy.close();
    await rx.close();
  });
  const r = await through.send(rx.url, '{"via":"proxy"}', {});
  t.equal(r.delivered, true, `delivered through the proxy: ${JSON.stringify(r)}`);
  t.same(proxy.tunnels, [`127.0.0.1:${rx.port}`], 'the proxy carried it to the receiver');
  t.equal(rx.received[0]?.body, '{"via":"proxy"}');
  t.equal((await bypass.send(rx.url, '{}', {})).delivered, true);
  t.equal(proxy.tunnels.length, 1, 'a NO_PROXY host is reached directly');
  t.equal(rx.received.length, 2);
  const broken = new WebhookSender({ proxy: { httpProxy: `http://127.0.0.1:${await deadPort()}` } });
  t.teardown(() => broken.close());
  t.match(await broken.send(rx.url, '{}', {}), { delivered: false, error: /ECONNREFUSED/ }, 'a proxy that is down fails the attempt, retried like any other');
});

t.test("https: the receiver's certificate is checked; a trusted one is used by address and by name", async (t) => {
  // A self-signed certificate for 127.0.0.1 and localhost, valid until 2126, made for these tests.
  const cert = readFileSync(new URL('tls/cert.pem', import.meta.url));
  const key = readFileSync(new URL('tls/key.pem', import.meta.url));
  const seen: string[] = [];
  const server = https.createServer({ cert, key }, (req, res) => {
    seen.push(req.url ?? '');
    req.resume();
    req.on('end', () => res.writeHead(200).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const untrusting = new WebhookSender();
  const trusting = new WebhookSender({ ca: cert });
  t.teardown(async () => {
    await untrusting.close();
    await trusting.close();
    server.closeAllConnections();
    server.close();
  });
  t.match(await untrusting.send(`https://127.0.0.1:${port}/hook`, '{}', {}), { delivered: false, error: /DEPTH_ZERO_SELF_SIGNED_CERT/ });
  t.equal(seen.length, 0, 'nothing was sent to it');
  t.equal((await trusting.send(`https://127.0.0.1:${port}/hook?a=1`, '{}', {})).delivered, true);
  t.equal((await trusting.send(`https://localhost:${port}/hook`, '{}', {})).delivered, true, 'by name: the name is sent for SNI and checked');
  t.same(seen, ['/hook?a=1', '/hook']);
});

t.test('close() ends what is in flight with an error', async (t) => {
  const rx = await startReceiver(() => 'hang');
  const sender = new WebhookSender({ timeoutMs: 5000 });
  t.teardown(() => rx.close());
  const pending = sender.send(rx.url, '{}', {});
  await until('the request reached the receiver', () => rx.received.length > 0);
  await sender.close();
  const r = await pending;
  t.equal(r.delivered, false);
  t.ok(r.error && !/timeout/.test(r.error), `failed at once, not by the timeout: ${r.error}`);
});
