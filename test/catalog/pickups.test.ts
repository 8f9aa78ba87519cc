import t from 'tap';
import { buildTestApp, H } from '../helper.js';

const PICKUP = 'df542cb8-8fca-44d0-94e6-715399c783f0';

t.test('GET /pickups and /pickups/{uuid}: every activity\'s pickup points, filtered and paged', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const get = async (url: string, status = 200) => {
    const res = await app.inject({ url: `/api/v3${url}`, headers: H });
    t.equal(res.statusCode, status, `${url}: ${res.body.slice(0, 200)}`);
    return res.json();
  };
  const own = await get(`/activities/${PICKUP}/pickups`);
  const all = await get('/pickups');
  t.ok(own.length >= 2);
  for (const p of own) t.ok(all.some((x: { uuid: string }) => x.uuid === p.uuid), `${p.name} is listed`);
  t.same(new Set(all.map((p: { uuid: string }) => p.uuid)).size, all.length, 'each point once');
  const hotels = await get('/pickups?type_in=HOTEL');
  t.ok(hotels.every((p: { type: string }) => p.type === 'HOTEL'));
  const named = own[0].name as string;
  t.ok((await get(`/pickups?text=${encodeURIComponent(named.slice(0, 4).toLowerCase())}`)).some((p: { uuid: string }) => p.uuid === own[0].uuid), 'text matches the name, any case');
  const sorted = (await get('/pickups?sort_by=-type')).map((p: { type: string }) => p.type);
  t.same(sorted, [...sorted].sort().reverse());
  t.equal((await get('/pickups?limit=1')).length, 1);
  await get('/pickups?limit=51', 400);
  t.match(await get('/pickups?text=ab', 400), { code: '0', message: /at least 3 characters/ });
  t.match(await get('/pickups?type_in=BUS', 400), { message: /HOTEL, PICKUP/ });
  t.match(await get('/pickups?sort_by=name', 400), { message: /type or -type/ });
  t.same(await get(`/pickups/${own[0].uuid}`), [own[0]], 'one point, in an array of one');
  t.match(await get('/pickups/nope', 404), { code: '1400' });
});

t.test('GET /activities/{uuid}/languages and /venues/{id}/comments', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const get = (url: string) => app.inject({ url: `/api/v3${url}`, headers: { ...H, 'accept-language': 'it' } });
  const CONFIRM = '0f5821c5-2046-11e7-9cc9-06a7e332783f';
  const langs = await get(`/activities/${CONFIRM}/languages`);
  t.equal(langs.statusCode, 200);
  t.match(langs.json(), [{ code: 'en', name: String }, { code: 'fr', name: String }], 'the languages a cart item may choose, named in the request language');
  const none = await get('/activities/4e451a8a-2ee5-493f-aa12-a39f13d7253e/languages');
  t.match({ status: none.statusCode, body: none.json() }, { status: 404, body: { code: '1400', message: 'No languages found for the activity' } });
  const venue = (await get('/venues')).json()[0];
  const comments = await get(`/venues/${venue.id}/comments?limit=100`);
  t.equal(comments.statusCode, 200);
  const byActivity = await Promise.all((await get(`/venues/${venue.id}/activities?limit=100`)).json().map(async (a: { uuid: string }) => (await get(`/activities/${a.uuid}/comments?limit=100`)).json().length));
  t.equal(comments.json().length, Math.min(100, byActivity.reduce((x: number, y: number) => x + y, 0)), "the comments of the venue's activities");
  t.equal((await get('/venues/999999/comments')).statusCode, 404);
});
