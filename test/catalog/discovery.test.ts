import t from 'tap';
import { buildTestApp, H } from '../helper.js';

t.test('lists, related searches, autocomplete, events and verticals over the seeded catalog', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const get = async (url: string, status = 200, headers: Record<string, string> = {}) => {
    const res = await app.inject({ url: `/api/v3${url}`, headers: { ...H, ...headers } });
    t.equal(res.statusCode, status, `${url} -> ${status}: ${res.body.slice(0, 160)}`);
    return Object.assign(res.json(), { headers: res.headers });
  };

  t.test('lists', async (t) => {
    const all = await get('/lists?limit=100');
    t.ok(all.length > 5);
    const rome = await get('/lists?city_in=1&limit=100');
    t.ok(rome.length > 0 && rome.every((l: { city: { id: number } }) => l.city.id === 1));
    t.same((await get('/lists?country_in=IT&limit=100')).length, (await get('/lists?country_in=1&limit=100')).length, 'iso code or id');
    t.ok((await get('/lists?category_in=museums&limit=100')).every((l: { category: { code: string } }) => l.category.code === 'museums'));
    const one = await get(`/lists/${rome[0].id}`, 200, { 'accept-language': 'it-IT' });
    t.match(one.title, /Roma/);
    t.ok(one.items.length > 0 && one.items.every((i: { event: { city: { id: number } } }) => i.event.city.id === 1));
    t.equal(one.items_count.musement, one.items.length > 19 ? one.items_count.musement : one.items.length);
    t.match(await get('/lists/999999', 404), { code: '1400' });
    t.same(await get('/list-types'), [{ id: 1, name: 'Top picks' }]);
    t.same((await get('/cities/1/lists?limit=100')).map((l: { id: number }) => l.id), rome.map((l: { id: number }) => l.id));
    t.match(await get('/cities/999/lists', 404), { code: '1400' });
  });

  t.test('activities-related', async (t) => {
    const groups = await get('/activities-related?text=rome');
    t.same(groups.map((g: { type: string }) => g.type), ['cities', 'lists', 'venues']);
    const cities = groups[0];
    t.equal(cities.matched, true, 'Rome matches a city exactly');
    t.match(cities.items[0], { id: '1', title: 'Rome', api_url: '/api/v3/cities/1', events_count: Number });
    t.equal((await get('/activities-related?text=rom'))[0].matched, false);
    const near = await get('/activities-related?coordinates=48.85,2.35&sort_by=distance&city_limit=2');
    t.same(near[0].items.map((i: { title: string }) => i.title), ['Paris', 'London']);
    t.ok((await get('/activities-related?minimum_events=1000'))[0].items.length === 0);
    for (const q of ['sort_by=distance', 'sort_by=price', 'sort_by=relevance,distance,-distance&coordinates=1,1', 'minimum_events=0']) {
      t.match(await get(`/activities-related?${q}`, 400), { code: '0' }, q);
    }
  });

  t.test('autocomplete', async (t) => {
    const groups = await get('/autocomplete?text=colosseum');
    t.same(groups.map((g: { type: string }) => g.type), ['activity', 'category', 'city', 'list', 'venue', 'country', 'hotel', 'pickup']);
    t.ok(groups[0].items.length > 0 && groups[0].items.length <= 3);
    t.match(groups[4].items[0], { id: '1', title: 'Colosseum', api_url: '/api/v3/venues/1' });
    const hotels = await get('/autocomplete?text=artemide');
    t.match(hotels[6].items[0], { id: 'c0000000-0000-4000-8000-000000000001', hint: 'Rome' });
    t.equal((await get('/autocomplete?text=o&city_limit=5'))[2].items.length, 5);
    t.equal((await get('/autocomplete?city_limit=4'))[2].items.length, 4, 'without text, as the reference allows: every item is a suggestion');
  });

  t.test('events and verticals (deprecated)', async (t) => {
    const events = await get('/events?city_in=1&limit=5');
    t.equal(events.headers.deprecation, 'true');
    t.ok(events.length <= 5 && events.every((a: { city: { id: number } }) => a.city.id === 1));
    t.equal((await get('/events')).length, Math.min(100, app.catalog.activities.filter((a) => a.status === 'ONLINE').length), 'default limit 100');
    const byId = await get('/events?id_in=100003');
    t.same(byId.map((a: { uuid: string }) => a.uuid), ['4e451a8a-2ee5-493f-aa12-a39f13d7253e']);
    t.ok((await get('/events?not_country_in=1&limit=100')).every((a: { city: { country: { id: number } } }) => a.city.country.id !== 1));
    const p2 = await get('/events?limit=2&page=2');
    const p1 = await get('/events?limit=4');
    t.same(p2.map((a: { uuid: string }) => a.uuid), p1.slice(2).map((a: { uuid: string }) => a.uuid));
    for (const q of ['limit=101', 'page=0', 'discounted=2', 'city_in=rome']) t.match(await get(`/events?${q}`, 400), { code: '0' }, q);
    const comments = await get('/events/100003/comments?limit=3');
    t.ok(comments.length <= 3);
    t.equal(comments.headers.deprecation, 'true');
    t.match(await get('/events/999/comments', 404), { code: '1400' });
    const verticals = await get('/verticals');
    t.equal(verticals.headers.deprecation, 'true');
    t.ok(verticals.every((v: { id: number }) => v.id <= 6));
    t.match(await get('/verticals/2'), [{ code: 'museums', active: true }], 'in an array of one, as the reference has it');
    t.match(await get('/verticals/7', 404), { code: '1400' }, 'a child category is not a vertical');
  });
});
