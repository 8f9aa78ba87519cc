import t from 'tap';
import { buildTestApp, H } from '../helper.js';
import { activity, catalogOf } from './records.js';

const catalog = catalogOf([
  ...Array.from({ length: 12 }, (_, i) => activity(i + 1)),
  activity(50, { status: 'DRAFT' }),
  activity(51, { venue_ids: [], city_id: 10, destination_city_ids: [20] }),
]);

t.test('taxonomy and places', async (t) => {
  const app = await buildTestApp({ catalog });
  t.teardown(() => app.close());
  const get = async (url: string, status = 200, headers: Record<string, string> = {}) => {
    const res = await app.inject({ url: `/api/v3${url}`, headers: { ...H, ...headers } });
    t.equal(res.statusCode, status, `${url} -> ${status}: ${res.body.slice(0, 160)}`);
    return res.json();
  };

  t.test('happy paths and shapes', async (t) => {
    t.same((await get('/categories')).map((c: { code: string }) => c.code), ['museums', 'tours']);
    t.equal((await get('/categories/1', 200, { 'accept-language': 'it-IT' })).name, 'Musei');
    t.equal((await get('/categories/1')).level, '0');
    const tree = await get('/categories-tree');
    t.match(tree, { id: 0, code: 'root', level: '0', parent_id: null }, 'one Category: a root above the top categories');
    t.same(tree.children.map((c: { children: unknown[] }) => c.children), [[], []]);
    const cat = await get('/categories/1/activities?limit=100');
    t.equal(cat.length, 6, 'the even-numbered activities');
    t.ok(cat.every((a: { categories: { id: number }[] }) => a.categories.some((c) => c.id === 1)));

    const cities = await get('/cities');
    t.same(cities.map((c: { id: number }) => c.id).sort(), [10, 20]);
    const rome = cities.find((c: { id: number }) => c.id === 10);
    t.equal(rome.activities_count, 7);
    t.equal(rome.venue_count, 1);
    t.equal((await get('/cities/20')).country.iso_code, 'FR');
    const paris = await get('/cities/20/activities?limit=100');
    t.ok(paris.some((a: { uuid: string }) => a.uuid === activity(51).uuid), 'an extra destination counts');
    t.same((await get('/cities/10/categories')).map((c: { code: string }) => c.code).sort(), ['museums', 'tours']);
    t.same((await get('/cities/10/venues')).map((v: { id: number }) => v.id), [100]);
    const near = await get('/cities?coordinates=48.85,2.35&distance=100KM');
    t.same(near.map((c: { id: number }) => c.id), [20]);
    const miles = await get('/cities?coordinates=48.85,2.35&distance=1000M');
    t.same(miles.map((c: { id: number }) => c.id), [20, 10], 'nearest first, Rome within 1000 miles');

    t.same((await get('/countries')).map((c: { iso_code: string }) => c.iso_code), ['IT', 'FR']);
    t.equal((await get('/countries/1', 200, { 'accept-language': 'it' })).name, 'Italia');
    t.equal((await get('/countries/2/activities?limit=100')).length, 7);
    const prio = await get('/countries/1/activities?limit=100&priority_city=10');
    t.equal(prio.length, 7);
    t.same((await get('/countries/1/cities')).map((c: { id: number }) => c.id), [10]);

    t.same((await get('/venues')).map((v: { id: number }) => v.id), [100]);
    t.same(await get('/venues?status=NOT-ACTIVE'), []);
    t.same(await get('/venues?country_in=FR'), []);
    t.equal((await get('/venues/100', 200, { 'accept-language': 'it-IT' })).name, 'Colosseo');
    const venue = await get('/venues/100/activities?limit=100&sort_by=price');
    t.equal(venue.length, 12);
    const prices = venue.map((a: { retail_price: { value: number } }) => a.retail_price.value);
    t.same(prices, [...prices].sort((a: number, b: number) => a - b));

    t.same(await get('/features', 200, { 'accept-language': 'it' }), [{ code: 'skip-the-line', name: 'Salta la fila' }]);
    t.same((await get('/languages')).map((l: { code: string }) => l.code), ['en', 'it']);
    t.same((await get('/markets')).map((m: { slug: string }) => m.slug), ['us', 'it']);
    t.same(await get('/services'), []);
    t.same(await get('/flavours'), [{ id: 7, name: 'Family', slug: 'family', active: true }]);
  });

  t.test('paging bounds and errors', async (t) => {
    t.equal((await get('/countries?limit=1&offset=1'))[0].iso_code, 'FR');
    t.same(await get('/countries?offset=10'), []);
    for (const url of ['/countries?limit=101', '/cities?offset=-1', '/categories/abc', '/cities?distance=5KM', '/cities?distance=far&coordinates=1,1', '/venues?country_in=FRA']) {
      const body = await get(url, 400);
      t.equal(body.code, '0', url);
    }
    for (const url of ['/categories/99', '/categories/99/activities', '/cities/99', '/cities/99/activities', '/cities/99/categories', '/cities/99/venues', '/countries/99', '/countries/99/activities', '/countries/99/cities', '/venues/99', '/venues/99/activities']) {
      const body = await get(url, 404);
      t.equal(body.code, '1400', url);
    }
  });
});
