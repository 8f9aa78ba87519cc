// Two partners certifying at once on one --shared sandbox, each with its own registered client and
// its own access token: each run passes on its own traffic, neither sees nor touches the other's, and
// what a run arranges (its fault, its scenarios) reaches its own application's requests only.
import type { FastifyInstance } from 'fastify';
import t from 'tap';
import { systemClock } from '../../src/clock.js';
import { buildTestApp } from '../helper.js';
import { playRun, receiver, until } from './client.js';

const ADMIN = { authorization: 'Bearer admin-secret' };
/** What the partners' clients send on every request (the run counts the headers of each). */
const HEADERS = { 'x-service-version': '3.5.0', 'accept-language': 'en-US', 'x-service-currency': 'EUR' };

t.test('two applications certify at once on a shared sandbox without seeing or disturbing each other', async (t) => {
  // No rate limit: the clients here do not wait out a 429 (another test covers the limits).
  const app: FastifyInstance = await buildTestApp({ clock: systemClock(), config: { shared: true, adminToken: 'admin-secret', allowPrivateReceivers: true, rateLimit: 0 } });
  t.teardown(() => app.close());
  const partners = await Promise.all(
    ['alpha', 'beta'].map(async (application) => {
      const client = (await app.inject({ method: 'POST', url: '/__admin/clients', headers: ADMIN, payload: { applications: [application], scopes: ['no-payment', 'order-item-cancellation'] } })).json();
      const hook = await receiver();
      t.teardown(hook.close);
      return { application, client, hook };
    }),
  );
  const ids = await Promise.all(partners.map((p) => playRun(app, { application: p.application, credentials: p.client, receiver: p.hook })));
  const token = async (p: (typeof partners)[number]) =>
    (await app.inject({ method: 'POST', url: '/api/v3/login', headers: { ...HEADERS, 'x-service-application': p.application }, payload: { ...p.client, grant_type: 'client_credentials' } })).json().access_token as string;
  const [alpha, beta] = await Promise.all(partners.map(token));
  const as = (bearer: string) => ({ authorization: `Bearer ${bearer}` });
  for (const [i, id] of ids.entries()) {
    const own = as(i === 0 ? (alpha as string) : (beta as string));
    let seen = '';
    await until(`${partners[i]?.application}'s run to pass`, async () => {
      const res = await app.inject({ url: `/__admin/certifications/${id}`, headers: own });
      seen = res.body;
      return res.json().state === 'passed';
    }, 30_000).catch((e: Error) => Promise.reject(new Error(`${e.message}: ${seen.slice(0, 3000)}`, { cause: e })));
    const cert = await app.inject({ url: `/__admin/certifications/${id}/certificate`, headers: own });
    t.equal(cert.statusCode, 200, `${partners[i]?.application} got its certificate with its own token`);
  }
  const [alphaRun, betaRun] = ids as [string, string];

  // Alpha's token sees alpha's runs only, and nothing of beta's.
  const listed = (await app.inject({ url: '/__admin/certifications', headers: as(alpha as string) })).json().runs;
  t.same(listed.map((r: { id: string; application: string }) => [r.id, r.application]), [[alphaRun, 'alpha']]);
  for (const [method, url, payload] of [
    ['GET', `/__admin/certifications/${betaRun}`],
    ['GET', `/__admin/certifications/${betaRun}/certificate`],
    ['POST', `/__admin/certifications/${betaRun}/answers`, { requirement: 'refusal', answer: 'KO' }],
    ['DELETE', `/__admin/certifications/${betaRun}`],
    ['POST', '/__admin/certifications', { application: 'beta' }],
  ] as const) {
    const res = await app.inject({ method, url, headers: as(alpha as string), ...(payload ? { payload } : {}) });
    t.equal(res.statusCode, 404, `${method} ${url} with alpha's token: 404`);
  }
  const still = (await app.inject({ url: `/__admin/certifications/${betaRun}`, headers: ADMIN })).json();
  t.equal(still.state, 'passed', "beta's run is untouched");
  t.equal((await app.inject({ url: '/__admin/certifications', headers: ADMIN })).json().runs.length, 2, 'the admin sees both');

  // Each run's fault answered its own application once.
  for (const p of partners) {
    const requests = (await app.inject({ url: `/__admin/requests?application=${p.application}&limit=1000`, headers: ADMIN })).json().requests;
    t.equal(requests.filter((r: { status: number }) => r.status === 503).length, 1, `${p.application}: one 503, its own run's`);
  }

  // An application without a run: the runs' fault is not on its requests, and it has no run.
  const gamma = (await app.inject({ method: 'POST', url: '/__admin/clients', headers: ADMIN, payload: { applications: ['gamma'], scopes: ['no-payment'] } })).json();
  const g = { ...partners[0]!, application: 'gamma', client: gamma };
  const bearer = await token(g);
  const h = { ...HEADERS, 'x-service-application': 'gamma', authorization: `Bearer ${bearer}` };
  const dates = await app.inject({ url: '/api/v3/activities/d38cea83-02f6-47b3-abd6-5abbf812e27a/dates', headers: h });
  t.equal(dates.statusCode, 200, 'the fault of the runs is not on gamma');
  const runs = (await app.inject({ url: '/__admin/certifications?application=gamma', headers: ADMIN })).json().runs;
  t.same(runs, []);
});
