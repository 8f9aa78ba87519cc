// A certification run on PostgreSQL with two instances on one database: the integration plays it
// through one instance, the other judges it and signs the certificate, which the first one's keys
// verify (the run, its fault, its scenarios and the key are all kept in the database).
import { createLocalJWKSet, jwtVerify } from 'jose';
import t from 'tap';
import { systemClock } from '../../src/clock.js';
import { createStore } from '../../src/store/index.js';
import { buildTestApp } from '../helper.js';
import { startPostgres } from '../pg/server.js';
import { playRun, receiver, until } from './client.js';

t.test('a run played through one instance passes on the other', async (t) => {
  const server = await startPostgres(t);
  const url = await server.createDatabase('certification');
  const [a, b] = [await buildTestApp({ store: await createStore(url), clock: systemClock() }), await buildTestApp({ store: await createStore(url), clock: systemClock() })];
  t.teardown(async () => {
    await a.close();
    await b.close();
  });
  const hook = await receiver();
  t.teardown(hook.close);
  const id = await playRun(a, { application: 'on-pg', credentials: { client_id: 'sandbox-client', client_secret: 'sandbox-secret' }, receiver: hook });
  let last = '';
  await until('the run to pass on the other instance', async () => {
    const run = (await b.inject({ url: `/__admin/certifications/${id}` })).json();
    last = run.requirements.filter((r: { status: string }) => r.status !== 'passed').map((r: { id: string; reason: string }) => `${r.id}: ${r.reason}`).join('; ');
    return run.state === 'passed';
  }, 90_000).catch((e: Error) => Promise.reject(new Error(`${e.message}: ${last}`, { cause: e })));
  const cert = (await b.inject({ url: `/__admin/certifications/${id}/certificate` })).body;
  const keys = (await a.inject({ url: '/.well-known/jwks.json' })).json();
  const { payload } = await jwtVerify(cert, createLocalJWKSet(keys));
  t.equal(payload.application, 'on-pg', "the certificate the other instance signed verifies with the first one's keys");
  t.equal((payload.requirements as unknown[]).length, 15, 'every requirement of the suite, with its evidence');
});
