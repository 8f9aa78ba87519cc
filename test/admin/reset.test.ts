import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { join } from 'node:path';
import { buildTestApp } from '../helper.js';
import { createStore } from '../../src/store/index.js';
import { tempDir } from '../tmp.js';

const login = async (app: FastifyInstance, application: string) => {
  const res = await app.inject({
    method: 'POST', url: '/api/v3/login', headers: { 'x-service-application': application },
    payload: { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' },
  });
  return res.json().access_token as string;
};
const valid = async (app: FastifyInstance, application: string, token: string) =>
  (await app.inject({ url: '/api/v3/currencies', headers: { 'x-service-application': application, authorization: `Bearer ${token}` } })).statusCode === 200;

t.test('reset of one application leaves the others; reset of all drops everything, durably', async (t) => {
  const file = join(tempDir(t, 'reset-'), 'state.json');
  const app = await buildTestApp({ store: await createStore(file) });
  const a = await login(app, 'app-a');
  const b = await login(app, 'app-b');
  t.ok(await valid(app, 'app-a', a));
  t.ok(await valid(app, 'app-b', b));
  t.notOk(await valid(app, 'app-b', a), 'tenants are isolated');

  const one = await app.inject({ method: 'POST', url: '/__admin/reset', payload: { application: 'app-a' } });
  t.equal(one.statusCode, 200);
  t.same(one.json(), { reset: 'app-a' });
  t.notOk(await valid(app, 'app-a', a), 'app-a tokens are gone');
  t.ok(await valid(app, 'app-b', b), 'app-b is untouched');
  await app.close();

  const again = await buildTestApp({ store: await createStore(file) });
  t.same(again.store.applications(), ['app-b'], 'the reset survived a restart');
  t.ok(await valid(again, 'app-b', b));
  const all = await again.inject({ method: 'POST', url: '/__admin/reset' });
  t.equal(all.statusCode, 200);
  t.same(all.json(), { reset: 'all' });
  t.notOk(await valid(again, 'app-b', b));
  t.same(again.store.applications(), []);
  const empty = await again.inject({ method: 'POST', url: '/__admin/reset', payload: {} });
  t.same(empty.json(), { reset: 'all' }, 'an empty body resets all');
  const bad = await again.inject({ method: 'POST', url: '/__admin/reset', payload: { application: '' } });
  t.equal(bad.statusCode, 400);
  t.match(bad.json(), { code: '0', message: /application/ });
  await again.close();
});
