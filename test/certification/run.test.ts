// A certification run end to end: a correct integration (client and receiver) played from the run's
// setup fields passes every requirement and gets a certificate; an integration that skips or breaks
// one requirement gets none, with that requirement named.
import type { FastifyInstance } from 'fastify';
/* eslint-disable @typescript-eslint/no-explicit-any -- runs as the control API answers them */
import t from 'tap';
import { systemClock } from '../../src/clock.js';
import { buildTestApp } from '../helper.js';
import { playRun, receiver, until, type Flaws } from './client.js';

const SANDBOX = { client_id: 'sandbox-client', client_secret: 'sandbox-secret' };

async function server(): Promise<FastifyInstance> {
  // Real time: the run's scenarios confirm, refuse and fail cancellations a few seconds after the client acts.
  const app = await buildTestApp({ clock: systemClock() });
  t.teardown(() => app.close());
  return app;
}

const runOf = async (app: FastifyInstance, id: string) => (await app.inject({ url: `/__admin/certifications/${id}` })).json();

/** Waits for a run to reach a condition; a timeout says what was not passed yet. */
async function settled(app: FastifyInstance, id: string, what: string, done: (run: any) => boolean) {
  let run: any;
  try {
    // Generous: fifteen integrations at once on a loaded machine.
    return await until(what, async () => done((run = await runOf(app, id))) && run, 150_000);
  } catch (e) {
    const open = run?.requirements.filter((r: any) => r.status !== 'passed').map((r: any) => `${r.id} ${r.status}: ${r.reason}`);
    throw new Error(`${(e as Error).message}; not passed: ${open?.join('; ')}`, { cause: e });
  }
}

t.test('a correct integration passes every requirement and gets a signed certificate', async (t) => {
  const app = await server();
  const hook = await receiver();
  t.teardown(hook.close);
  const id = await playRun(app, { application: 'careful', credentials: SANDBOX, receiver: hook });
  const run = await settled(app, id, 'the run to pass', (r) => r.state === 'passed');
  t.equal(run.passed, run.total, `all ${run.total} requirements passed`);
  for (const r of run.requirements) t.ok(r.evidence.length > 0, `${r.id}: evidence (${r.evidence.map((e: { id: string }) => e.id).join(', ')})`);
  t.equal(run.api_version, '3.5.0', 'the version the client sent');
  const byId = Object.fromEntries(run.requirements.map((r: { id: string }) => [r.id, r]));
  t.match(byId['duplicate-webhook'].evidence, [{ kind: 'order_item' }, { kind: 'delivery', what: /answered 200 2 times/ }, { kind: 'answer', id: '1' }]);
  t.match(byId['bad-signature'].evidence, [{ kind: 'probe', what: /answered 401/ }]);
  t.ok(hook.got.some((g) => g.status === 'bad signature'), 'the receiver saw the badly signed webhook');
  const cert = await app.inject({ url: `/__admin/certifications/${id}/certificate` });
  t.equal(cert.statusCode, 200);
  t.match(cert.headers['content-type'], /application\/jwt/);
  t.match(cert.body, /^[\w-]+\.[\w-]+\.[\w-]+$/, 'a compact JWS');
  const faults = (await app.inject({ url: '/__admin/faults?application=careful' })).json().faults;
  t.same(faults, [], 'the run arranged nothing that outlives it');
});

/** Requirements judged once every other one passed: they wait while another is missing. */
const LAST = ['headers', 'clean-report'];

/** Each flaw, and the requirement it must cost. */
const FLAWS: Array<[string, Flaws]> = [
  ['login', { loginPerCall: true }],
  ['headers', { dropLanguageOnce: true }],
  ['search', { skipSearch: true }],
  ['dates-before-cart', { skipDatesList: true }],
  ['instant-confirmation', { skipVoucher: true }],
  ['confirms-later', { skipOrderRead: true }],
  ['refusal', { wrongRefusalAnswer: true }],
  ['required-details', { skipPickup: true }],
  ['cancellation', { skipRefundPolicies: true }],
  ['cancellation-error', { skipCancellationError: true }],
  ['duplicate-webhook', { refuseDuplicates: true }],
  ['retry-after', { retryAtOnce: true }],
  ['no-blind-retry', { repeat4xx: true }],
  ['bad-signature', { acceptBadSignatures: true }],
  ['clean-report', { unknownRoute: true }],
];

t.test('an integration that skips or breaks one requirement gets no certificate, that requirement named', async (t) => {
  const app = await server();
  // Every flawed integration at once, each its own application and receiver, on one sandbox.
  await Promise.all(
    FLAWS.map(async ([requirement, flaws]) => {
      const hook = await receiver(flaws);
      t.teardown(hook.close);
      const id = await playRun(app, { application: `flawed-${requirement}`, credentials: SANDBOX, receiver: hook, flaws });
      // Everything else passes (but those that wait for all the others); this one does not.
      const run = await settled(app, id, `the other requirements of ${requirement}`, (r) =>
        r.requirements.filter((x: { id: string }) => x.id !== requirement && !LAST.includes(x.id)).every((x: { status: string }) => x.status === 'passed'));
      const mine = run.requirements.find((x: { id: string }) => x.id === requirement);
      t.not(mine.status, 'passed', `${requirement}: ${mine.status} (${mine.reason})`);
      t.not(run.state, 'passed', `${requirement}: the run did not pass`);
      const cert = await app.inject({ url: `/__admin/certifications/${id}/certificate` });
      t.equal(cert.statusCode, 409, `${requirement}: no certificate`);
      t.match(cert.json().message, new RegExp(`\\b${requirement} \\(`), `${requirement}: named as missing`);
    }),
  );
});
