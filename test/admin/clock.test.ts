import t from 'tap';
import { buildTestApp } from '../helper.js';
import { fixedClock } from '../../src/clock.js';

t.test('POST /__admin/clock advances or sets the server clock', async (t) => {
  const clock = fixedClock('2026-01-15T10:00:00Z');
  const app = await buildTestApp({ clock });
  t.teardown(() => app.close());
  const post = (payload: unknown) => app.inject({ method: 'POST', url: '/__admin/clock', payload: payload as object });

  let res = await post({ advance: 'PT2H' });
  t.equal(res.statusCode, 200);
  t.same(res.json(), { now: '2026-01-15T12:00:00.000Z', application: null });
  t.equal(clock.now().toISOString(), '2026-01-15T12:00:00.000Z', 'the injected clock moved');
  res = await post({ advance: 'P1M' });
  t.same(res.json(), { now: '2026-02-15T12:00:00.000Z', application: null }, 'months follow the calendar');
  res = await post({ advance: '-P1DT30M' });
  t.same(res.json(), { now: '2026-02-14T11:30:00.000Z', application: null }, 'a leading minus goes back');
  res = await post({ set: '2026-03-01T09:00:00+02:00' });
  t.same(res.json(), { now: '2026-03-01T07:00:00.000Z', application: null });
  res = await post({ set: '2026-03-01 09:00:00Z' });
  t.equal(res.statusCode, 200, 'a space between date and time is accepted');
});

t.test('bad clock input is a 400 {code, message}', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const cases: Array<[unknown, RegExp]> = [
    [{}, /exactly one of "advance"/],
    [{ advance: 'PT1H', set: '2026-01-01T00:00:00Z' }, /exactly one/],
    [{ advance: '2 hours' }, /"advance": Invalid ISO 8601 duration "2 hours"/],
    [{ advance: 'P' }, /Invalid ISO 8601 duration/],
    [{ advance: 'P0.5M' }, /"advance"/],
    [{ set: 'tomorrow' }, /"set" must be a date-time/],
    [{ set: '2026-01-15' }, /"set" must be a date-time/],
    [{ set: '2026-13-45T00:00:00Z' }, /"set" must be a date-time/],
    [{ speed: 2 }, /"speed" is not allowed/],
    [{ advance: 5 }, /advance/],
    [{ advance: 'P99999999Y' }, /"advance": P99999999Y would put the clock outside 1970-01-01T00:00:00Z\.\.9999-12-31T23:59:59Z/],
    [{ advance: '-P99999999Y' }, /outside/],
    [{ advance: 'P8000Y' }, /outside/],
    [{ advance: '-P60Y' }, /outside/],
    [{ set: '1969-12-31T23:59:59Z' }, /"set": 1969-12-31T23:59:59Z would put the clock outside/],
  ];
  for (const [payload, message] of cases) {
    const res = await app.inject({ method: 'POST', url: '/__admin/clock', payload: payload as object });
    t.equal(res.statusCode, 400, JSON.stringify(payload));
    t.match(res.json(), { code: '0', message }, JSON.stringify(payload));
  }
  // None of the refusals moved the clock: the server still answers and its time is still today's.
  const after = await app.inject({ method: 'POST', url: '/__admin/clock', payload: { advance: 'PT0S' } });
  t.equal(after.statusCode, 200);
  t.match(after.json().now, /^20\d\d-/);
  t.equal((await app.inject({ method: 'POST', url: '/api/v3/carts', headers: { 'x-service-application': 'a' } })).statusCode, 200, 'a write after the refusals works');
  t.equal((await app.inject({ url: '/__admin/requests' })).statusCode, 200, 'and so does the journal');
  const latest = await app.inject({ method: 'POST', url: '/__admin/clock', payload: { set: '9999-12-31T23:59:59Z' } });
  t.same(latest.json(), { now: '9999-12-31T23:59:59.000Z', application: null }, 'the last second of year 9999 is allowed');
  const none = await app.inject({ method: 'POST', url: '/__admin/clock' });
  t.equal(none.statusCode, 400, 'no body');
  t.same(Object.keys(none.json()).sort(), ['code', 'message']);
});
