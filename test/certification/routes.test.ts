// The certification routes' edges: bad input and states answered with {code, message}; a run
// started again ends the one running and disarms its fault; an ended run arranges nothing more;
// a suite file that breaks its rules names the requirement and the problem.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { loadSuite, SUITE_FILE } from '../../src/certification/suite.js';
import { CONFIRM, overInject } from '../book-order.js';
import { buildTestApp } from '../helper.js';

t.test('runs: start, start again, end; answers and certificates before their time', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const post = (url: string, payload?: object) => app.inject({ method: 'POST', url: `/__admin${url}`, ...(payload ? { payload } : {}) });
  t.equal((await post('/certifications', {})).statusCode, 400, 'no application');
  const first = (await post('/certifications', { application: 'test-app' })).json();
  t.equal(first.state, 'running');
  t.equal(first.requirements.length, 15);
  t.match((await app.inject({ url: '/__admin/faults?application=test-app' })).json().faults, [{ path: '/activities/d38cea83-02f6-47b3-abd6-5abbf812e27a/dates', status: 503, retry_after_s: 2 }]);

  const again = await post('/certifications', { application: 'test-app' });
  t.equal(again.statusCode, 201);
  const second = again.json();
  t.equal((await app.inject({ url: `/__admin/certifications/${first.id}` })).json().state, 'ended', 'starting again ends the run running');
  t.equal((await app.inject({ url: '/__admin/faults?application=test-app' })).json().faults.length, 1, 'its fault went with it');

  for (const [payload, status, message] of [
    [{ requirement: 'nope', answer: 'x' }, 404, /no requirement nope/],
    [{ requirement: 'login', answer: 'x' }, 400, /asks no question/],
    [{ requirement: 'refusal', answer: 'KO' }, 409, /Nothing to check the answer against yet: waiting for an order item/],
  ] as const) {
    const res = await post(`/certifications/${second.id}/answers`, payload);
    t.equal(res.statusCode, status, `${payload.requirement}: ${status}`);
    t.match(res.json().message, message);
  }
  t.equal((await post(`/certifications/${first.id}/answers`, { requirement: 'refusal', answer: 'KO' })).statusCode, 409, 'an ended run takes no answer');
  const early = await app.inject({ url: `/__admin/certifications/${second.id}/certificate` });
  t.equal(early.statusCode, 409);
  t.match(early.json().message, /not passed yet: login \(waiting for .*\); headers/);
  t.equal((await app.inject({ url: '/__admin/certifications/cert_none' })).statusCode, 404);
  t.equal((await app.inject({ url: `/__admin/certifications/${second.id}?application=other-app` })).statusCode, 404, "not that application's run");

  t.equal((await app.inject({ method: 'DELETE', url: `/__admin/certifications/${second.id}` })).statusCode, 204);
  t.same((await app.inject({ url: '/__admin/faults?application=test-app' })).json().faults, [], 'ended: no fault left');
  t.same((await app.inject({ url: '/__admin/certifications?application=test-app' })).json().runs.map((r: { state: string }) => r.state), ['ended', 'ended']);

  // Ended: the run's scenario no longer attaches, so a booking that needs confirmation stays PENDING.
  const call = overInject(app, 'test-app');
  await call('POST', '/login', { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' });
  const [schedule] = await call('GET', `/activities/${CONFIRM}/dates/2026-01-20`);
  const cart = await call('POST', '/carts');
  await call('POST', `/carts/${cart.uuid}/items`, [{ product_identifier: schedule.groups[0].slots[0].products[0].product_id, quantity: 1, language: 'en' }]);
  await call('PUT', `/carts/${cart.uuid}/customer`, { firstname: 'A', lastname: 'B', email: 'confirms-later@example.com', musement_newsletter: 'NO', allow_profiling: 'NO', thirdparty_newsletter: 'NO', events_related_newsletter: 'NO' });
  const order = await call('POST', '/orders', { cart_uuid: cart.uuid });
  await call('POST', '/payments/no/payment', { uuid: order.uuid });
  const orders = (await app.inject({ url: '/__admin/orders?application=test-app' })).json().orders;
  t.match(orders[0].items[0], { status: 'PENDING', scenario: null }, 'no scenario of an ended run');
});

t.test('--report off: nothing to judge a run on', async (t) => {
  const app = await buildTestApp({ config: { report: 'off' } });
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'POST', url: '/__admin/certifications', payload: { application: 'a' } });
  t.equal(res.statusCode, 409);
  t.match(res.json().message, /--report off/);
  t.equal((await app.inject({ url: '/.well-known/jwks.json' })).statusCode, 409);
});

t.test('a suite file that breaks its rules names the requirement and the problem', async (t) => {
  const good = loadSuite(SUITE_FILE);
  t.equal(good.suite, 'partner-booking-1');
  t.ok(good.requirements.find((r) => r.id === 'confirms-later')?.scenario?.steps.length, 'scenarios made Scenarios');
  const dir = t.testdir();
  const suite = (requirement: string) => {
    const path = join(dir, `s${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(path, `suite: s\nversion: 1\ntitle: t\nrequirements:\n${requirement}`);
    return path;
  };
  const req = (extra: string) => `  - id: r\n    title: t\n    instructions: i\n    failure: f\n${extra}`;
  for (const [text, problem] of [
    [req("    evidence:\n      - {request: 'GET /x/{nope}'}\n"), /requirement r: \/evidence\/0: \{nope\} is neither a setup value nor an earlier "as"/],
    [req('    evidence:\n      - {finding: [no-such-finding]}\n'), /requirement r: \/evidence\/0: no finding "no-such-finding" in the report/],
    [req('    evidence:\n      - {request: GET /x, after: y}\n'), /after "y" is no earlier "as"/],
    [req('    evidence:\n      - {request: GET /x, stauts: 200}\n'), /evidence\/0/],
    [req('    scenario: {name: s, description: d, on: payment, steps: [{after: PT1S, status: REFUNDED}]}\n    evidence:\n      - {request: GET /x}\n'), /PENDING cannot move to REFUNDED/],
    [`${req('    evidence:\n      - {request: GET /x}\n')}${req('    evidence:\n      - {request: GET /y}\n')}`, /requirement id "r" is used twice/],
  ] as const) {
    t.throws(() => loadSuite(suite(text)), problem);
  }
  t.equal(loadSuite(SUITE_FILE), good, 'the same file and text: the suite parsed once');
  const edited = suite(req('    evidence:\n      - {request: GET /x}\n'));
  t.equal(loadSuite(edited).title, 't');
  writeFileSync(edited, readFileSync(edited, 'utf8').replace('title: t', 'title: edited'));
  t.equal(loadSuite(edited).title, 'edited', 'an edited file is parsed again');
});
