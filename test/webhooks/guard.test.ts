// On a shared sandbox a partner's token may point a receiver, or a receiver check, at public
// addresses only: not loopback, private ranges, link-local (the cloud metadata service) or IPv6
// equivalents, judged after DNS resolution and again at every connection. The admin token may, and
// --allow-private-receivers allows partners too (a private deployment; the other tests use it).
import t from 'tap';
import { addressProblem, publicOnlyLookup, publicTargetProblem } from '../../src/webhooks/guard.js';
import { buildTestApp } from '../helper.js';
import { snapshot, startReceiver } from './receiver.js';

const ADMIN = 'adm1n';
const SANDBOX = { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' };

async function shared(allowPrivateReceivers = false) {
  const app = await buildTestApp({ config: { shared: true, adminToken: ADMIN, allowPrivateReceivers } });
  // A shared sandbox has no sandbox-client: a registered client logs in.
  const reg = (await app.inject({ method: 'POST', url: '/__admin/clients', headers: { authorization: `Bearer ${ADMIN}` }, payload: { applications: ['team-a'], scopes: [] } })).json();
  const token = (await app.inject({ method: 'POST', url: '/api/v3/login', headers: { 'x-service-application': 'team-a' }, payload: { ...SANDBOX, client_id: reg.client_id, client_secret: reg.client_secret } })).json().access_token as string;
  const as = (bearer: string) => (method: 'PUT' | 'POST', url: string, payload: object) => app.inject({ method, url: `/__admin${url}`, headers: { authorization: `Bearer ${bearer}` }, payload });
  return { app, partner: as(token), admin: as(ADMIN) };
}

t.test('addresses: only public unicast ones pass', async (t) => {
  for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '0.0.0.0', '100.64.0.1', '::1', '::', 'fe80::1', 'fd00:ec2::254', '::ffff:127.0.0.1', '::ffff:169.254.169.254', '224.0.0.1', '255.255.255.255']) {
    t.ok(addressProblem(a), `${a}: refused (${addressProblem(a)})`);
  }
  for (const a of ['93.184.216.34', '8.8.8.8', '2606:2800:220:1:248:1893:25c8:1946']) t.equal(addressProblem(a), null, `${a}: public`);
  t.match(await publicTargetProblem('http://localhost:8080/hook'), /localhost resolves to (127\.0\.0\.1|::1) is a loopback address/, 'a name is judged by what it resolves to');
  t.match(await publicTargetProblem('http://[::ffff:7f00:1]/x'), /loopback/, 'an IPv4-mapped IPv6 literal');
  t.equal(await publicTargetProblem('http://93.184.216.34/x'), null);
  const looked = await new Promise<Error | null>((resolve) => publicOnlyLookup('localhost', {}, (err) => resolve(err)));
  t.match(looked, { code: 'EPRIVATE', message: /localhost resolves to .* loopback address/ }, 'at connection time too');
});

t.test("a partner's token cannot point a receiver or a check at a private or metadata address", async (t) => {
  const { app, partner, admin } = await shared();
  t.teardown(() => app.close());
  for (const url of ['http://127.0.0.1:9/hook', 'http://169.254.169.254/latest/meta-data/', 'http://10.0.0.5/hook', 'http://[::1]:9/hook', 'http://localhost:9/hook', 'http://user:pw@192.168.0.10/hook']) {
    const set = await partner('PUT', '/webhooks/config', { url });
    t.equal(set.statusCode, 400, `receiver ${url}: 400`);
    t.match(set.json(), { code: '0', message: /public receivers only/ });
    t.notMatch(set.body, 'pw@', 'the password is not echoed');
    const check = await partner('POST', '/webhooks/check', { url });
    t.equal(check.statusCode, 400, `check ${url}: 400, no request sent`);
  }
  t.same((await app.inject({ url: '/__admin/webhooks/config', headers: { authorization: `Bearer ${ADMIN}` } })).json().applications, {}, 'nothing was stored');
  t.equal((await admin('PUT', '/webhooks/config', { url: 'http://127.0.0.1:9/hook', application: 'team-a' })).statusCode, 200, 'the admin token may');
});

t.test('a receiver a partner set is held to public addresses at every attempt, whatever its name resolves to later', async (t) => {
  const rx = await startReceiver();
  t.teardown(() => rx.close());
  const { app } = await shared();
  t.teardown(() => app.close());
  // As if the name had resolved to a public address when it was set, and resolves to loopback now.
  const url = rx.url.replace('127.0.0.1', 'localhost');
  await app.store.update('team-a', (tn) => void (tn.webhookConfig = { url, secret: null, set_by: 'partner' }));
  const d = await app.webhooks.enqueue('team-a', snapshot());
  t.ok(d);
  await app.webhooks.idle();
  t.equal(rx.received.length, 0, 'nothing reached the loopback receiver');
  t.match(app.webhooks.get(d!.id)?.attempts[0], { error: /EPRIVATE|public receivers only/ });
});

t.test('--allow-private-receivers: a private deployment lets partners use their own network', async (t) => {
  const rx = await startReceiver();
  t.teardown(() => rx.close());
  const { app, partner } = await shared(true);
  t.teardown(() => app.close());
  t.equal((await partner('PUT', '/webhooks/config', { url: rx.url })).statusCode, 200);
  t.equal((await partner('POST', '/webhooks/check', { url: rx.url })).statusCode, 200);
});
