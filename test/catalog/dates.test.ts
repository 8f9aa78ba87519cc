import t from 'tap';
import { decodeProductId, encodeProductId, openProductCount, productsOn } from '../../src/catalog/schedule.js';
import { fixedClock } from '../../src/clock.js';
import { buildTestApp, H, testCatalog } from '../helper.js';
import { activity, catalogOf } from './records.js';

// The fixed clock stands at 2026-01-15T10:00:00Z, a Thursday.
const base = activity(1);
const pickupAct = activity(2, {
  booking: { ...base.booking, pickups: [{ uuid: 'aaaaaaaa-0000-4000-8000-000000000001', type: 'HOTEL', name: 'Hotel Roma', latitude: 41.9, longitude: 12.5 }] },
});
const weekdays = activity(3, {
  has_price_info_on_date: false,
  booking: { ...base.booking, weekdays: [1, 3], horizon_days: 14, unavailable_dates: ['2026-01-21'], sold_out_dates: ['2026-01-19'] },
});
const dayBased = activity(4, {
  booking_type: 'CALENDAR-NO-TIMESLOTS',
  cutoff_time: 'P1D',
  booking: { ...base.booking, timeslots: [], options: base.booking.options.map((o) => ({ ...o, type: 'DAY-BASED' as const })) },
});
const draft = activity(5, { status: 'DRAFT' });
const catalog = catalogOf([base, pickupAct, weekdays, dayBased, draft]);

t.test('product ids round-trip and reject garbage', async (t) => {
  const ref = { activityUuid: base.uuid, featureCode: 'standard', holderCode: 'adult', day: '2026-01-16', time: '09:00' };
  t.same(decodeProductId(encodeProductId(ref)), ref);
  t.equal(decodeProductId('123'), null);
  t.equal(decodeProductId(Buffer.from('a|b').toString('base64url').padEnd(20, 'A')), null);
});

t.test('openProductCount counts what productsOn lists, across cutoffs', async (t) => {
  const catalog = await testCatalog();
  let compared = 0;
  let closedByCutoff = 0;
  for (const a of catalog.activities) {
    for (const at of ['2026-01-15T08:00:00Z', '2026-01-15T14:30:00Z', '2026-01-15T23:00:00Z']) {
      for (const day of ['2026-01-15', '2026-01-16']) {
        const listed = productsOn(a, day, new Date(at)).length;
        if (openProductCount(a, day, new Date(at)) !== listed) t.fail(`${a.uuid} ${day} at ${at}`);
        compared++;
        if (listed === 0 && productsOn(a, day, new Date('2026-01-01T00:00:00Z')).length > 0) closedByCutoff++;
      }
    }
  }
  t.ok(compared > 100, `${compared} comparisons`);
  t.ok(closedByCutoff > 0, 'some of them are days whose slots the cutoff has closed');
});

t.test('dates endpoints', async (t) => {
  const app = await buildTestApp({ catalog, clock: fixedClock('2026-01-15T10:00:00Z') });
  t.teardown(() => app.close());
  const get = async (url: string, status = 200, headers: Record<string, string> = {}) => {
    const res = await app.inject({ url: `/api/v3/activities/${url}`, headers: { ...H, ...headers } });
    t.equal(res.statusCode, status, `${url} -> ${status}: ${res.body.slice(0, 200)}`);
    return res.json();
  };

  t.test('dates list: range, weekdays, sold out, unavailable, price info', async (t) => {
    const days = await get(`${weekdays.uuid}/dates`);
    t.same(days, [
      { day: '2026-01-19', sold_out: true },
      { day: '2026-01-26', sold_out: false },
      { day: '2026-01-28', sold_out: false },
    ], 'Mondays and Wednesdays, 2201 day left out, within 14 days');
    const priced = await get(`${base.uuid}/dates?date_from=2026-01-15&date_to=2026-01-17`, 200, { 'x-service-currency': 'EUR' });
    t.same(priced.map((d: { day: string }) => d.day), ['2026-01-15', '2026-01-16', '2026-01-17'], 'today still has the 15:00 slot');
    t.same(priced[0].retail_price, { currency: 'EUR', value: 10, formatted_value: '€10.00', formatted_iso_value: '€10.00' }, 'the cheapest holder');
    t.notOk('merchant_price' in priced[0]);
    const cut = await get(`${dayBased.uuid}/dates?date_from=2026-01-15&date_to=2026-01-17`);
    t.same(cut.map((d: { day: string }) => d.day), ['2026-01-16', '2026-01-17'], 'a one-day cutoff leaves today out');
    t.same(await get(`${base.uuid}/dates?date_from=2026-01-16&date_to=2026-01-16&tickets_number=11`), [], 'not enough tickets');
    const [discounted] = await get(`${base.uuid}/dates?date_from=2026-01-16&date_to=2026-01-16&discounts=10,50`, 200, { 'x-service-currency': 'EUR' });
    t.same(discounted.retail_prices_with_custom_discount.map((p: { value: number }) => p.value), [9, 5], '10% and 50% off the 10 EUR price');
    t.match(await get(`${base.uuid}/dates?discounts=abc`, 400), { message: /discounts/ });
  });

  t.test('dates list errors', async (t) => {
    t.match(await get(`${base.uuid}/dates?date_from=2026-02-10&date_to=2026-02-01`, 400), { code: '1440', message: 'End date cannot be before start date.' });
    t.match(await get(`${base.uuid}/dates?date_to=2026-01-01`, 400), { code: '1440' });
    t.match(await get(`${base.uuid}/dates?date_from=tomorrow`, 400), { code: '0', message: /date_from/ });
    t.match(await get(`${pickupAct.uuid}/dates`, 400), { code: '0', message: /pickup/ });
    t.equal((await get(`${pickupAct.uuid}/dates?pickup=aaaaaaaa-0000-4000-8000-000000000001&date_to=2026-01-16`)).length, 2);
    t.match(await get(`${pickupAct.uuid}/dates?pickup=nope`, 400), { message: /pickup/ });
    t.match(await get(`${draft.uuid}/dates`, 403), { code: '0' });
    t.match(await get('99999999-9999-4999-8999-999999999999/dates', 404), { code: '1400' });
  });

  t.test('a day schedule: groups, slots, products', async (t) => {
    const [schedule] = await get(`${base.uuid}/dates/2026-01-16`, 200, { 'accept-language': 'it-IT', 'x-service-currency': 'EUR' });
    t.equal(schedule.groups.length, 1);
    const group = schedule.groups[0];
    t.match(group, { feature_code: 'standard', name: 'Biglietto standard', type: 'TIME-BASED', default: true });
    t.same(group.slots.map((s: { time: string }) => s.time), ['09:00', '15:00']);
    const adult = group.slots[0].products[0];
    t.match(adult, { holder_code: 'adult', name: 'Adulto', type: 'musement', min_buy: 1, max_buy: 8, availability: 10, activity_uuid: base.uuid });
    t.same(adult.retail_price.value, 21);
    t.same(adult.discount_amount.value, 5);
    t.notOk('merchant_price' in adult);
    t.same(decodeProductId(adult.product_id), { activityUuid: base.uuid, featureCode: 'standard', holderCode: 'adult', day: '2026-01-16', time: '09:00' });
    const [today] = await get(`${base.uuid}/dates/2026-01-15`);
    t.same(today.groups[0].slots.map((s: { time: string }) => s.time), ['15:00'], 'the 09:00 slot has passed');
    const [day] = await get(`${dayBased.uuid}/dates/2026-01-17`);
    t.same(day.groups[0].slots.map((s: { time: string }) => s.time), [''], 'day-based: one all-day slot');
    const [sold] = await get(`${weekdays.uuid}/dates/2026-01-19`);
    t.equal(sold.groups[0].slots[0].products[0].availability, 0);
  });

  t.test('a day schedule: errors', async (t) => {
    t.match(await get(`${weekdays.uuid}/dates/2026-01-21`, 422), { code: '2201' });
    t.match(await get(`${weekdays.uuid}/dates/2026-01-20`, 404), { code: '1402' });
    t.match(await get(`${base.uuid}/dates/2025-12-01`, 404), { code: '1402' });
    t.match(await get(`${dayBased.uuid}/dates/2026-01-15`, 404), { code: '1402' });
    t.match(await get(`${base.uuid}/dates/2026-01-16?tickets_number=11`, 404), { code: '1402' });
    t.match(await get(`${base.uuid}/dates/16-01-2026`, 400), { code: '0', message: /day/ });
    t.match(await get(`${base.uuid}/dates/2026-02-31`, 400), { code: '0' });
    t.match(await get(`${pickupAct.uuid}/dates/2026-01-16`, 400), { message: /pickup/ });
    t.match(await get(`${pickupAct.uuid}/dates/2026-01-16?pickup=other`, 404), { code: '1402' });
    t.equal((await get(`${pickupAct.uuid}/dates/2026-01-16?pickup=aaaaaaaa-0000-4000-8000-000000000001`)).length, 1);
    t.match(await get(`${draft.uuid}/dates/2026-01-16`, 403), { code: '0' });
  });
});
