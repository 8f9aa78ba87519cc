// Guessing credentials is limited per source address: after a burst of wrong tokens or secrets, on
// the partner API of a shared sandbox and on the control API, an address gets 429 with Retry-After
// and its credentials are not looked at until the minute is out. An expired token is no guess.
import t, { type Test } from 'tap';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from '../helper.js';
import { fixedClock } from '../../src/clock.js';
import { FAILURE_BURST } from '../../src/auth/failures.js';
import { newToken, tokenApplication } from '../../src/auth/tokens.js';

const ADMIN = { authorization: 'Bearer adm1n' };

async function sandbox(t: Test) {
  const clock = fixedClock();
  const app = await buildTestApp({ clock, config: { shared: true, adminToken: 'adm1n', rateLimit: 0 } });
  t.teardown(() => app.close());
  const client = (await app.inject({ method: 'POST', url: '/__admin/clients', headers: ADMIN, payload: { applications: ['shop'], scopes: [] } })).json();
  const login = (secret = client.client_secret as string) =>
    app.inject({ method: 'POST', url: '/api/v3/login', headers: { 'x-service-application': 'shop' }, payload: { client_id: client.client_id, client_secret: secret, grant_type: 'client_credentials' } });
  const token = (await login()).json().access_token as string;
  return { app, clock, login, token };
}

const read = (app: FastifyInstance, url: string, token?: string) =>
  app.inject({ url, headers: { 'x-service-application': 'shop', ...(token ? { authorization: `Bearer ${token}` } : {}) } });

t.test('partner API: a burst of wrong tokens, then 429 for every credential of that address until the minute is out', async (t) => {
  const { app, clock, token } = await sandbox(t);
  for (let i = 0; i < FAILURE_BURST; i++) t.equal((await read(app, '/api/v3/currencies', newToken('shop'))).statusCode, 401, `wrong token ${i + 1}`);
  const refused = await read(app, '/api/v3/currencies', newToken('shop'));
  t.equal(refused.statusCode, 429);
  t.same(Object.keys(refused.json()).sort(), ['code', 'message']);
  t.match(refused.json().message, new RegExp(`^Address 127\\.0\\.0\\.1 sent ${FAILURE_BURST} wrong credentials .* within a minute: none it sends is checked for 60 s more$`));
  t.equal(refused.headers['retry-after'], '60');
  t.equal((await read(app, '/api/v3/currencies', token)).statusCode, 429, 'not even a right one: nothing it sends is looked at');
  t.equal((await read(app, '/api/v3/currencies')).statusCode, 200, 'a request without a credential is no attempt: catalog reads go on');
  clock.advance(30_000);
  t.equal((await read(app, '/api/v3/currencies', token)).headers['retry-after'], '30');
  clock.advance(30_000);
  t.equal((await read(app, '/api/v3/currencies', token)).statusCode, 200, 'a minute later its token works again');
});

t.test('wrong client secrets count too; an expired token does not', async (t) => {
  const { app, clock, login, token } = await sandbox(t);
  clock.advance(3600_000);
  for (let i = 0; i < FAILURE_BURST + 10; i++) {
    const res = await read(app, '/api/v3/currencies', token);
    if (res.statusCode !== 401) t.fail(`an expired token is answered 401, not ${res.statusCode}`);
  }
  t.equal((await login()).statusCode, 200, 'a partner whose token ran out logs in again');
  for (let i = 0; i < FAILURE_BURST; i++) await login('cs_wrong');
  t.equal((await login('cs_wrong')).statusCode, 429, 'after a burst of wrong secrets, 429');
  t.equal((await login()).statusCode, 429, 'for the right one as well');
});

t.test('control API: wrong tokens are limited per address, whatever the number of applications', async (t) => {
  const { app, clock, token } = await sandbox(t);
  for (let i = 0; i < FAILURE_BURST; i++) t.equal((await app.inject({ url: '/__admin/orders', headers: { authorization: `Bearer wrong-${i}` } })).statusCode, 401);
  const refused = await app.inject({ url: '/__admin/orders', headers: ADMIN });
  t.equal(refused.statusCode, 429, 'even the admin token waits: nothing that address sends is checked');
  t.equal(refused.headers['retry-after'], '60');
  t.equal((await app.inject({ url: '/__admin/health' })).statusCode, 200, 'health stays open');
  clock.advance(60_000);
  t.equal((await app.inject({ url: '/__admin/orders', headers: { authorization: `Bearer ${token}` } })).statusCode, 200, "then a partner's token opens its application again");
});

t.test('a token names its application, and only the one spelling counts', async (t) => {
  const token = newToken('café-shop');
  t.equal(tokenApplication(token), 'café-shop');
  t.equal(tokenApplication(token.split('.')[1] as string), null, 'a token without a dot names none');
  t.equal(tokenApplication(`${Buffer.from('shop').toString('base64')}=.${'x'.repeat(43)}`), null, 'padded or other spellings name none');
  t.equal(tokenApplication(`.${'x'.repeat(43)}`), null);
  const { app } = await sandbox(t);
  const forged = await read(app, '/api/v3/currencies', newToken('shop'));
  t.match(forged.json().message, /^Invalid access token/, 'a token naming an application with a secret never issued is simply invalid');
});
