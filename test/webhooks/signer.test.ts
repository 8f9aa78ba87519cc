import { createHmac, timingSafeEqual } from 'node:crypto';
import t from 'tap';
import { Webhook } from 'standardwebhooks';
import { deliveryHeaders, standardWebhooksKey } from '../../src/webhooks/signer.js';
import { buildWebhookApp, snapshot, startReceiver } from './receiver.js';

const body = '{"order_id":"1","order_item_status":"OK"}';

t.test('vendor headers: t=<unix s>,v1=<hex HMAC of "<t>.<body>">', async (t) => {
  const at = new Date('2026-01-15T10:00:00.900Z');
  const h = deliveryHeaders({ id: 'whd_1', body, secret: 's3cret', headerPrefix: 'X-Acme-', at });
  const ts = String(Math.floor(at.getTime() / 1000));
  t.equal(h['X-Acme-Webhook-Id'], 'whd_1');
  t.equal(h['X-Acme-Webhook-Timestamp'], ts);
  const hex = createHmac('sha256', 's3cret').update(`${ts}.${body}`).digest('hex');
  t.equal(h['X-Acme-Signature'], `t=${ts},v1=${hex}`);
  t.equal(h['webhook-id'], 'whd_1');
  t.equal(h['webhook-timestamp'], ts);
  const b64 = createHmac('sha256', 's3cret').update(`whd_1.${ts}.${body}`).digest('base64');
  t.equal(h['webhook-signature'], `v1,${b64}`);
  t.notOk(Object.keys(h).some((k) => k.startsWith('X-Service-')), 'only the configured prefix');
});

t.test('a plain secret verifies with standardwebhooks as whsec_<base64 of it> or in raw format', async (t) => {
  const h = deliveryHeaders({ id: 'whd_2', body, secret: 'plain-secret', headerPrefix: 'X-Service-', at: new Date() });
  t.same(new Webhook(`whsec_${Buffer.from('plain-secret').toString('base64')}`).verify(body, h), JSON.parse(body));
  t.same(new Webhook('plain-secret', { format: 'raw' }).verify(body, h), JSON.parse(body));
  t.throws(() => new Webhook(`whsec_${Buffer.from('other').toString('base64')}`).verify(body, h), /No matching signature/);
  t.throws(() => new Webhook('plain-secret', { format: 'raw' }).verify(`${body} `, h), /No matching signature/, 'a changed body fails');
});

t.test('a whsec_ secret is used as Standard Webhooks defines it', async (t) => {
  const key = Buffer.from('0123456789abcdef0123456789abcdef');
  const secret = `whsec_${key.toString('base64')}`;
  t.same(standardWebhooksKey(secret), key);
  const h = deliveryHeaders({ id: 'msg_1', body, secret, headerPrefix: 'X-Service-', at: new Date() });
  t.same(new Webhook(secret).verify(body, h), JSON.parse(body), 'the secret as given verifies');
  const ts = h['X-Service-Webhook-Timestamp'];
  t.equal(h['X-Service-Signature'], `t=${ts},v1=${createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex')}`, 'vendor scheme keys with the string as configured');
  t.same(standardWebhooksKey('whsec_not base64!'), Buffer.from('whsec_not base64!'), 'not base64: treated as plain');
  t.same(standardWebhooksKey('whsec_'), Buffer.from('whsec_'), 'empty: treated as plain, never an empty key');
});

t.test('a timestamp off the wall clock is refused by verifiers: why signatures use wall time', async (t) => {
  const h = deliveryHeaders({ id: 'x', body, secret: 'k', headerPrefix: 'X-Service-', at: new Date(Date.now() - 3600_000) });
  t.throws(() => new Webhook('k', { format: 'raw' }).verify(body, h), /too old/);
});

t.test('the verification snippet of docs/webhooks.md works on a signed request', async (t) => {
  // Same code as docs/webhooks.md (Signatures), so the documentation cannot drift from the signer.
  const verifyStandard = (secret: string, rawBody: string, headers: Record<string, string>) => {
    const key = secret.startsWith('whsec_') ? secret : `whsec_${Buffer.from(secret).toString('base64')}`;
    return new Webhook(key).verify(rawBody, headers);
  };
  const verifyVendor = (secret: string, rawBody: string, headers: Record<string, string>) => {
    const [, ts, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(headers['x-service-signature'] ?? '') ?? [];
    if (!ts || !v1 || Math.abs(Date.now() / 1000 - Number(ts)) > 300) return false;
    const expected = createHmac('sha256', secret).update(`${ts}.${rawBody}`).digest();
    return timingSafeEqual(expected, Buffer.from(v1, 'hex'));
  };
  for (const secret of ['plain-secret', 'sécret-ü', `whsec_${Buffer.from('k'.repeat(32)).toString('base64')}`]) {
    const h = deliveryHeaders({ id: 'whd_9', body, secret, headerPrefix: 'X-Service-', at: new Date() });
    const lower = Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
    t.same(verifyStandard(secret, body, lower), JSON.parse(body), `standard: ${secret}`);
    t.equal(verifyVendor(secret, body, lower), true, `vendor: ${secret}`);
    t.equal(verifyVendor('wrong', body, lower), false);
  }
});

t.test('an unsigned delivery carries its id and timestamp under both names too (a receiver deduplicates on them), and no signature', async (t) => {
  const rx = await startReceiver((_r, i) => (i === 0 ? 500 : 200));
  t.teardown(() => rx.close());
  const app = await buildWebhookApp({ config: { headerPrefix: 'X-Acme-' }, webhooks: { schedule: ['PT1S'] } });
  t.teardown(() => app.close());
  t.equal((await app.inject({ method: 'PUT', url: '/__admin/webhooks/config', payload: { application: 'acme', url: rx.url } })).statusCode, 200, 'a receiver without a secret');
  const d = (await app.webhooks.enqueue('acme', snapshot()))!;
  await app.webhooks.idle();
  await app.inject({ method: 'POST', url: '/__admin/clock', payload: { advance: 'PT1S' } });
  await app.webhooks.idle();
  t.equal(rx.received.length, 2, 'the first attempt and its retry');
  for (const r of rx.received) {
    t.equal(r.headers['webhook-id'], d.id, 'the same id on the retry');
    t.equal(r.headers['x-acme-webhook-id'], d.id);
    t.match(r.headers['webhook-timestamp'], /^\d+$/);
    t.ok(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000) < 60, 'wall-clock seconds');
    t.equal(r.headers['x-acme-webhook-timestamp'], r.headers['webhook-timestamp']);
    t.same(Object.keys(r.headers).filter((h) => /signature/.test(h)), [], 'no secret, no signature');
  }
  t.same(Object.keys(deliveryHeaders({ id: 'x', body, headerPrefix: 'X-Acme-', at: new Date() })).sort(), ['X-Acme-Webhook-Id', 'X-Acme-Webhook-Timestamp', 'webhook-id', 'webhook-timestamp']);
});
