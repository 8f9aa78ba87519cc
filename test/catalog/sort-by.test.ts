import t from 'tap';
import { MAX_ECHO } from '../../src/http/errors.js';
import { buildTestApp, H } from '../helper.js';
import { activity, catalogOf } from './records.js';

// Activity n: price 20 + n EUR, relevance 100 - n, relevance_venue n; even n in city 10 and category 1,
// odd n in city 20 and category 2; all at venue 100.
const catalog = catalogOf(Array.from({ length: 12 }, (_, i) => activity(i + 1, { reviews_avg: ((i * 7) % 10) / 2 })));

/** Every activity listing that takes sort_by: they must all accept the same values. */
const LISTS = ['/activities', '/cities/10/activities', '/categories/1/activities', '/venues/100/activities'] as const;

t.test('sort_by takes the same values on every activity listing', async (t) => {
  const app = await buildTestApp({ catalog });
  t.teardown(() => app.close());
  const get = async (url: string, status = 200) => {
    const res = await app.inject({ url: `/api/v3${url}`, headers: { ...H, 'x-service-currency': 'EUR' } });
    t.equal(res.statusCode, status, `${url} -> ${status}: ${res.body.slice(0, 200)}`);
    const body = res.json();
    return Array.isArray(body) ? body : (body.data ?? body);
  };
  const prices = (list: { retail_price: { value: number } }[]) => list.map((a) => a.retail_price.value);
  const desc = (xs: number[]) => [...xs].sort((a, b) => b - a);
  const asc = (xs: number[]) => [...xs].sort((a, b) => a - b);

  t.test('-price: most expensive first, everywhere (it was refused on the place lists)', async (t) => {
    for (const list of LISTS) {
      const p = prices(await get(`${list}?sort_by=-price&limit=100`));
      t.ok(p.length > 1, list);
      t.same(p, desc(p), `${list}?sort_by=-price`);
      const up = prices(await get(`${list}?sort_by=price&limit=100`));
      t.same(up, asc(up), `${list}?sort_by=price`);
    }
  });

  t.test('both spellings of the relevance keys, with and without "-", on every list', async (t) => {
    for (const value of ['relevance', '-relevance', 'rating', '-rating', 'relevance-venue', 'venue-relevance', '-venue-relevance',
      'relevance-city', 'city-relevance', 'relevance-category', 'category-relevance', 'relevance-external', 'external-relevance', '-external-relevance']) {
      for (const list of LISTS) await get(`${list}?sort_by=${value}&limit=5`);
    }
    // The two spellings name the same key: the same order.
    for (const list of LISTS) {
      const uuids = async (v: string) => (await get(`${list}?sort_by=${v}&limit=100`)).map((a: { uuid: string }) => a.uuid);
      t.same(await uuids('venue-relevance'), await uuids('relevance-venue'), `${list}: venue-relevance = relevance-venue`);
      t.same(await uuids('-external-relevance'), await uuids('-relevance-external'), `${list}: -external-relevance = -relevance-external`);
    }
  });

  t.test("'-' reverses the place lists' strategies; without sort_by they keep their default", async (t) => {
    const city = '/cities/10/activities?limit=100';
    const rel = (list: { relevance: number }[]) => list.map((a) => a.relevance);
    t.same(rel(await get(city)), desc(rel(await get(city))), 'default: most relevant first');
    t.same(rel(await get(`${city}&sort_by=relevance`)), rel(await get(city)), 'relevance: most relevant first, as before');
    t.same(rel(await get(`${city}&sort_by=-relevance`)), asc(rel(await get(city))), '-relevance: reversed');
    const ratings = (list: { reviews_avg: number }[]) => list.map((a) => a.reviews_avg);
    const best = ratings(await get(`${city}&sort_by=rating`));
    t.same(best, desc(best), 'rating: best rated first, as before');
    t.same(ratings(await get(`${city}&sort_by=-rating`)), asc(best), '-rating: reversed');
    const venue = (await get('/venues/100/activities?limit=100')).map((a: { uuid: string }) => a.uuid);
    t.same(venue, Array.from({ length: 12 }, (_, i) => activity(12 - i).uuid), 'the venue list defaults to venue relevance, highest first');
    t.same(prices(await get(`${city}&sort_by=-price,relevance`)), desc(prices(await get(city))), 'a list of values, as on /activities');
  });

  t.test('unknown values and distance without coordinates: the same 400 everywhere', async (t) => {
    for (const list of LISTS) {
      t.match(await get(`${list}?sort_by=cheapest`, 400), { code: '0', message: /querystring "sort_by" has unknown value "cheapest": one of relevance, distance, price, .*venue-relevance.*, each also with - in front$/ }, list);
      t.match(await get(`${list}?sort_by=-distance`, 400), { code: '0', message: /sort_by.*coordinates/ }, list);
    }
  });

  t.test(`a 15 KB value: ${MAX_ECHO} characters of it echoed, the message under 300 (it was 378)`, async (t) => {
    for (const list of [...LISTS, '/activities-related']) {
      const { message } = await get(`${list}?sort_by=${'s'.repeat(15_000)}`, 400);
      t.match(message, new RegExp(`unknown value "s{${MAX_ECHO}}… \\(15000 characters\\)"`), list);
      t.ok(message.length <= 300, `${list}: ${message.length} characters`);
    }
  });
});
