// Time per application: POST /__admin/clock with an application moves only that application's clock
// (the server clock plus its own offset), and its token expiry, scenario steps, webhook retries and
// schedules follow it; other applications keep the server clock.
import t from 'tap';
import { join } from 'node:path';
import { fixedClock } from '../../src/clock.js';
import { createStore } from '../../src/store/index.js';
import { buildTestApp } from '../helper.js';
import { bookOrder, overInject } from '../book-order.js';
import { startReceiver } from '../webhooks/receiver.js';
import { tempDir } from '../tmp.js';

const SANDBOX = { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' };
const INSTANT = '4e451a8a-2ee5-493f-aa12-a39f13d7253e';

t.test("an application's clock moves its token expiry, and no one else's", async (t) => {
  const app = await buildTestApp({ clock: fixedClock('2026-01-15T10:00:00Z') });
  t.teardown(() => app.close());
  const login = async (application: string) => (await app.inject({ method: 'POST', url: '/api/v3/login', headers: { 'x-service-application': application }, payload: SANDBOX })).json().access_token as string;
  const use = (application: string, token: string) => app.inject({ url: '/api/v3/currencies', headers: { 'x-service-application': application, authorization: `Bearer ${token}` } });
  const a = await login('team-a');
  const b = await login('team-b');

  const moved = await app.inject({ method: 'POST', url: '/__admin/clock', payload: { application: 'team-a', advance: 'PT2H' } });
  t.same(moved.json(), { now: '2026-01-15T12:00:00.000Z', application: 'team-a' });
  t.match((await app.inject({ url: '/__admin/clock?application=team-a' })).json(), { now: '2026-01-15T12:00:00.000Z', application: 'team-a', application_offset_ms: 7_200_000 });
  t.match((await app.inject({ url: '/__admin/clock?application=team-b' })).json(), { now: '2026-01-15T10:00:00.000Z', application_offset_ms: 0 });
  t.match((await app.inject({ url: '/__admin/clock' })).json(), { now: '2026-01-15T10:00:00.000Z', application: null, application_offset_ms: null }, 'the server clock did not move');

  const expired = await use('team-a', a);
  t.equal(expired.statusCode, 401, "A's token expired on A's clock");
  t.match(expired.json().message, /expired at 2026-01-15T11:00:00/);
  t.equal((await use('team-b', b)).statusCode, 200, "B's token did not");

  // Set, and back: the application's clock can also go back before the server clock.
  await app.inject({ method: 'POST', url: '/__admin/clock', payload: { application: 'team-a', set: '2026-01-15T09:00:00Z' } });
  t.match((await app.inject({ url: '/__admin/clock?application=team-a' })).json(), { now: '2026-01-15T09:00:00.000Z', application_offset_ms: -3_600_000 });
  // The server clock moves every application's, each keeping its own offset.
  await app.inject({ method: 'POST', url: '/__admin/clock', payload: { advance: 'P1D' } });
  t.match((await app.inject({ url: '/__admin/clock?application=team-a' })).json(), { now: '2026-01-16T09:00:00.000Z' });
  // A reset of the application drops its clock too.
  await app.inject({ method: 'POST', url: '/__admin/reset', payload: { application: 'team-a' } });
  t.match((await app.inject({ url: '/__admin/clock?application=team-a' })).json(), { now: '2026-01-16T10:00:00.000Z', application_offset_ms: 0 });
});

t.test("scenario steps, webhook retries and schedules follow their application's clock", async (t) => {
  let fail = true;
  const rx = await startReceiver(() => (fail ? 500 : 200));
  t.teardown(() => rx.close());
  const app = await buildTestApp({ clock: fixedClock('2026-01-15T10:00:00Z'), config: { webhookUrl: rx.url } });
  t.teardown(() => app.close());
  // An order whose item is PENDING, then the built-in scenario that confirms it two minutes later.
  const book = async (application: string) => {
    const order = await bookOrder(overInject(app, application));
    const item = order.items[0]!.uuid;
    await app.inject({ method: 'POST', url: '/__admin/scenarios/delayed-confirmation/run', payload: { order_item_uuid: item } });
    return { order: order.uuid, item, application };
  };
  const status = async (b: { order: string; application: string }) => (await app.inject({ url: `/api/v3/orders/${b.order}`, headers: { 'x-service-application': b.application } })).json().items[0].status;

  const a = await book('team-a');
  const b = await book('team-b');
  t.equal(await status(a), 'PENDING');
  await app.inject({ method: 'POST', url: '/__admin/clock', payload: { application: 'team-a', advance: 'PT3M' } });
  await app.scheduler.round('scenario');
  t.equal(await status(a), 'OK', "A's scenario step ran on A's clock");
  t.equal(await status(b), 'PENDING', "B's did not");

  // The webhook of A's move failed once (500); its retry is due 10 s later on A's clock.
  await app.webhooks.idle();
  const pendingA = app.webhooks.list({ application: 'team-a' }).find((d) => d.state === 'pending');
  t.ok(pendingA, "A's webhook waits for its retry");
  t.equal(pendingA?.attempts[0]?.at, '2026-01-15T10:03:00.000Z', "the attempt's time is A's");
  fail = false;
  await app.inject({ method: 'POST', url: '/__admin/clock', payload: { application: 'team-a', advance: 'PT1M' } });
  await app.webhooks.idle();
  t.equal(app.webhooks.get(pendingA!.id)?.state, 'delivered', "A's retry ran at once when A's clock passed it");

  // A day's schedule on A's clock: the day A is now in is today for A.
  await app.inject({ method: 'POST', url: '/__admin/clock', payload: { application: 'team-a', set: '2026-01-21T12:00:00Z' } });
  const past = await app.inject({ url: `/api/v3/activities/${INSTANT}/dates/2026-01-20`, headers: { 'x-service-application': 'team-a' } });
  t.not(past.statusCode, 200, 'the 20th is past on A’s clock');
  const open = await app.inject({ url: `/api/v3/activities/${INSTANT}/dates/2026-01-20`, headers: { 'x-service-application': 'team-b' } });
  t.equal(open.statusCode, 200, 'and still bookable for B');
});

t.test("an application's clock is kept in the store over a restart", async (t) => {
  const file = join(tempDir(t), 'state.json');
  const first = await buildTestApp({ store: await createStore(file), clock: fixedClock('2026-01-15T10:00:00Z') });
  await first.inject({ method: 'POST', url: '/__admin/clock', payload: { application: 'team-a', advance: 'P3D' } });
  await first.close();
  const second = await buildTestApp({ store: await createStore(file), clock: fixedClock('2026-01-15T10:00:00Z') });
  t.teardown(() => second.close());
  t.match((await second.inject({ url: '/__admin/clock?application=team-a' })).json(), { now: '2026-01-18T10:00:00.000Z', application_offset_ms: 259_200_000 });
});
