import t from 'tap';
import { reviewsOf } from '../../src/catalog/reviews.js';
import { buildTestApp, H } from '../helper.js';
import { activity, catalogOf } from './records.js';

const reviewed = activity(1, { reviews_aggregated_info: { '1': 2, '2': 1, '3': 3, '4': 5, '5': 9 }, reviews_number: 20, bundle_uuids: [activity(2).uuid] });
const other = activity(2);
const far = activity(3, { city_id: 20, category_ids: [9] });
const alone = activity(5, { city_id: 99 });
const catalog = catalogOf([reviewed, other, far, alone, activity(4)]);

t.test('reviews are derived from the aggregate and stable', async (t) => {
  const r = reviewsOf(reviewed);
  t.equal(r.length, 20);
  for (const star of [1, 2, 3, 4, 5]) t.equal(r.filter((x) => x.rating === star).length, reviewed.reviews_aggregated_info[String(star) as '1']);
  t.same(reviewsOf(activity(1, { reviews_aggregated_info: reviewed.reviews_aggregated_info })), r, 'same uuid, same reviews');
});

t.test('content, comments, reviews, bundles, related, updates', async (t) => {
  const app = await buildTestApp({ catalog });
  t.teardown(() => app.close());
  const get = async (url: string, status = 200, headers: Record<string, string> = {}) => {
    const res = await app.inject({ url: `/api/v3/${url}`, headers: { ...H, ...headers } });
    t.equal(res.statusCode, status, `${url} -> ${status}: ${res.body.slice(0, 200)}`);
    return Object.assign(res.json(), { headers: res.headers });
  };
  const act = `activities/${reviewed.uuid}`;

  const it = await get(`${act}/contents/it-IT`);
  t.match(it, { locale: 'it', title: 'Giro numero 1', translated: true, is_manually_translated_complete: false });
  t.match(await get(`${act}/contents/en`), { locale: 'en', title: 'Tour number 1', is_default: true });
  t.match(await get(`${act}/contents/de`, 404), { code: '1400' });
  t.match(await get(`${act}/contents/x`, 400), { code: '0', message: /locale/ });
  t.match(await get(`${act}/contents/abcdef`, 400), { code: '0' });

  const comments = await get(`${act}/comments?limit=100`);
  t.equal(comments.headers.deprecation, 'true');
  t.equal(comments.length, 20);
  const dates = comments.map((c: { sent_at: string }) => c.sent_at);
  t.same(dates, [...dates].sort().reverse(), 'newest first by default');
  t.ok((await get(`${act}/comments?rating_in=4&limit=100`)).every((c: { rating: number }) => c.rating >= 4));
  t.equal((await get(`${act}/comments?rating_in=4&limit=100`)).length, 14);
  t.equal((await get(`${act}/comments?rating_in=2,3&limit=100`)).length, 4);
  const byRating = (await get(`${act}/comments?sort_by=-RATING&limit=100`)).map((c: { rating: number }) => c.rating);
  t.same(byRating, [...byRating].sort((a: number, b: number) => b - a));
  t.ok((await get(`${act}/comments?include_empty=NO&limit=100`)).every((c: { body: string }) => c.body !== ''));
  t.equal((await get(`${act}/comments`)).length, 10, 'default limit 10');
  for (const q of ['rating_in=a', 'rating_in=1,2,3', 'limit=101', 'sort_by=STARS', 'include_empty=MAYBE']) {
    t.match(await get(`${act}/comments?${q}`, 400), { code: '0' }, q);
  }

  const reviews = await get(`${act}/reviews`);
  t.ok(reviews.length <= 6);
  t.match(reviews[0], { uuid: String, comment: String, customer_country: String, date: String, rating_value: Number });
  const high = await get(`${act}/reviews?sort_by=HIGHEST-RATED&limit=500`);
  t.equal(high[0].rating_value, 5);
  t.match(await get(`${act}/reviews?page=0`, 400), { code: '0' });
  t.match(await get(`${act}/reviews?limit=501`, 400), { code: '0' });

  const bundles = await get(`${act}/bundles`);
  t.equal(bundles[0].activities[0].uuid, other.uuid);
  t.match(await get(`activities/${other.uuid}/bundles`, 404), { code: '1400' });

  const related = await get(`${act}/related-activities`);
  t.same(related.map((a: { uuid: string; city: { id: number } }) => [a.uuid, a.city.id]), [[far.uuid, 20]]);
  t.notOk(related.some((a: { uuid: string }) => a.uuid === reviewed.uuid));
  t.match(await get(`activities/${alone.uuid}/related-activities`, 404), { code: '1400' });
  t.ok(Array.isArray((await get(`${act}/safety-information`)).safety_measures));

  const updates = await get('catalog/updates/2026-01-10');
  t.ok(Array.isArray(updates));
  t.same(await get('catalog/updates/2026-01-10'), updates);
  t.match(await get('catalog/updates/2030-01-01', 400), { code: '0', message: /future/ });
  t.match(await get('catalog/updates/yesterday', 400), { code: '0' });
});
