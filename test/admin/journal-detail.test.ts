// GET /__admin/requests/{id}: a journal entry with its headers and bodies both ways, secrets masked,
// long bodies cut at the cap with a mark, only the latest requests keeping them.
import t, { type Test } from 'tap';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, H } from '../helper.js';
import { BODY_CAP, KEEP_DETAILS } from '../../src/admin/journal-detail.js';
import { redactText, redactUrl } from '../../src/redact.js';

const latest = async (t: Test, app: FastifyInstance) => {
  const [entry] = (await app.inject({ url: '/__admin/requests?limit=1' })).json().requests;
  const res = await app.inject({ url: `/__admin/requests/${entry.id}` });
  t.equal(res.statusCode, 200);
  return res.json();
};

t.test('a login: the secret sent and the token received are masked, in every part', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const login = await app.inject({ method: 'POST', url: '/api/v3/login', headers: H, payload: { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' } });
  t.equal(login.statusCode, 200);
  const token = login.json().access_token as string;
  const d = await latest(t, app);
  t.match(d, { method: 'POST', path: '/api/v3/login', status: 200, application: 'test-app' });
  t.equal(d.request.headers['content-type'], 'application/json');
  t.equal(d.request.headers['x-service-application'], 'test-app');
  t.same(JSON.parse(d.request.body), { client_id: 'sandbox-client', client_secret: '***', grant_type: 'client_credentials' });
  t.match(JSON.parse(d.response.body), { access_token: '***', token_type: 'bearer', expires_in: 3600 });
  t.equal(d.response.headers['cache-control'], 'no-store');
  t.equal(d.response.headers['content-type'], 'application/json; charset=utf-8');
  t.equal(d.response.truncated, false);
  t.equal(d.response.bytes, login.body.length);
  t.notOk(JSON.stringify(d).includes('sandbox-secret'), 'the secret appears nowhere');
  t.notOk(JSON.stringify(d).includes(token), 'the token appears nowhere');

  // The token in use: the Authorization header keeps its scheme only.
  await app.inject({ url: '/api/v3/orders?limit=1', headers: { ...H, authorization: `Bearer ${token}` } });
  const read = await latest(t, app);
  t.equal(read.request.headers.authorization, 'Bearer ***');
  t.equal(read.request.body, null, 'a GET has no body');
  t.notOk(JSON.stringify(read).includes(token));

  // The deprecated GET /login: secrets in the query, a token in a GET answer (marked no-store).
  const viaQuery = await app.inject({ url: '/api/v3/login?client_id=sandbox-client&client_secret=sandbox-secret&grant_type=client_credentials', headers: H });
  t.equal(viaQuery.statusCode, 200);
  const q = await latest(t, app);
  t.equal(q.path, '/api/v3/login?client_id=sandbox-client&client_secret=***&grant_type=client_credentials');
  const listed = (await app.inject({ url: '/__admin/requests?limit=1' })).json().requests[0];
  t.equal(listed.path, q.path, 'the list shows the masked path too');
  t.match(JSON.parse(q.response.body), { access_token: '***' });
  t.notOk(JSON.stringify(q).includes(viaQuery.json().access_token));
});

t.test('a long answer is cut at the cap and marked; a short one whole', async (t) => {
  const app = await buildTestApp({ config: { catalogSize: 200 } });
  t.teardown(() => app.close());
  const big = await app.inject({ url: '/api/v3/activities?limit=100', headers: H });
  t.ok(big.body.length > BODY_CAP, `the answer (${big.body.length} characters) is over the cap`);
  const d = await latest(t, app);
  t.equal(d.response.truncated, true);
  t.equal(d.response.bytes, Buffer.byteLength(big.body));
  t.equal(d.response.body, Buffer.from(big.body).subarray(0, BODY_CAP).toString());
  t.equal(d.response.headers['content-length'], String(Buffer.byteLength(big.body)));
  // Past the bytes the journal holds whole (64 MB of long answers), long answers are kept as their first bytes: the same view.
  for (let i = 0; i < 140; i++) await app.inject({ url: '/api/v3/activities?limit=100', headers: H });
  const later = await latest(t, app);
  t.match(later.response, { truncated: true, bytes: Buffer.byteLength(big.body), body: d.response.body });
  const small = await app.inject({ url: '/api/v3/currencies', headers: H });
  const s = await latest(t, app);
  t.equal(s.response.body, small.body);
  t.equal(s.response.truncated, false);
  t.equal(s.status, 200);
});

t.test('a write: the request body as sent, the answer with its status', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'POST', url: '/api/v3/carts', headers: H, payload: { note: 'hello' } });
  const d = await latest(t, app);
  t.equal(d.status, res.statusCode);
  t.same(JSON.parse(d.request.body), { note: 'hello' });
  t.equal(d.response.body, res.body);
  t.equal(d.request.bytes, 16);

  // A long body of two-byte characters, with a secret: cut at the cap between characters, masked.
  const note = 'é'.repeat(10_000);
  await app.inject({ method: 'POST', url: '/api/v3/carts', headers: H, payload: { password: 'hunter2', note } });
  const long = await latest(t, app);
  t.equal(long.request.truncated, true);
  t.equal(long.request.bytes, Buffer.byteLength(JSON.stringify({ password: 'hunter2', note })));
  t.ok(long.request.body.startsWith('{"password":"***","note":"éé'), long.request.body.slice(0, 40));
  t.ok(Buffer.byteLength(long.request.body) <= BODY_CAP, 'within the cap');
  t.notOk(long.request.body.includes('\uFFFD'), 'no broken character at the cut');
  t.notOk(JSON.stringify(long).includes('hunter2'));

  // Cut in the middle of a character: its first half is shown neither there nor ahead of the next body.
  await app.inject({ method: 'POST', url: '/api/v3/carts', headers: H, payload: { note } });
  const odd = await latest(t, app);
  t.equal(odd.request.truncated, true);
  t.notOk(odd.request.body.includes('\uFFFD'), 'no broken character at the cut');
  t.notOk(odd.response.body.includes('\uFFFD'), 'nor at the start of the answer shown after it');
});

t.test('only the latest requests keep their exchange; unknown ids are 404, bad ones 400', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  await app.inject({ url: '/api/v3/currencies', headers: H });
  const [first] = (await app.inject({ url: '/__admin/requests' })).json().requests;
  for (let i = 0; i < KEEP_DETAILS; i++) await app.inject({ url: '/api/v3/currencies', headers: H });
  const old = (await app.inject({ url: `/__admin/requests/${first.id}` })).json();
  t.match(old, { id: first.id, path: '/api/v3/currencies', request: null, response: null }, 'the line is there, its exchange no longer');
  t.equal((await app.inject({ url: '/__admin/requests/999999' })).statusCode, 404);
  t.equal((await app.inject({ url: '/__admin/requests/abc' })).statusCode, 400);
  await app.inject({ method: 'DELETE', url: '/__admin/requests' });
  t.equal((await app.inject({ url: `/__admin/requests/${first.id + KEEP_DETAILS}` })).statusCode, 404, 'cleared with the journal');
});

t.test('redaction: names that are secret, and those that are not', async (t) => {
  t.equal(redactText('{"access_token":"a","token_type":"bearer","expires_in":3600,"refresh_token":"b"}'), '{"access_token":"***","token_type":"bearer","expires_in":3600,"refresh_token":"***"}');
  t.equal(redactText('{"user":{"password":"p\\"q","name":"x"}}'), '{"user":{"password":"***","name":"x"}}');
  t.equal(redactText('{"client_secret":"cut-in-the-mid'), '{"client_secret":"***"', 'a body cut inside the secret');
  t.equal(redactText('client_id=a&client_secret=b&api_key=c'), 'client_id=a&client_secret=***&api_key=***', 'a form body');
  t.equal(redactText('{"url":"https://x/?a=1&b=2"}'), '{"url":"https://x/?a=1&b=2"}', 'JSON is not read as a form');
  t.equal(redactUrl('/api/v3/activities?limit=20&sort_by=-rating'), '/api/v3/activities?limit=20&sort_by=-rating');
  t.equal(redactUrl('/x?access_token=abc&b=1'), '/x?access_token=***&b=1');
  t.equal(redactUrl('/x?b=1&client%5Fsecret=s'), '/x?b=1&client%5Fsecret=***', 'an escaped name');
});
