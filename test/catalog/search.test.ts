import t from 'tap';
import { fixedClock } from '../../src/clock.js';
import { buildTestApp, H } from '../helper.js';
import { activity, catalogOf } from './records.js';

const b = activity(0).booking;
const list = [
  activity(1, { title: { en: 'Vatican Museums skip the line' }, feature_codes: ['skip-the-line'], flavour_ids: [7], discount: 0, flags: { temporary: true }, duration_range: { min: 'PT1H', max: 'PT2H' } }),
  activity(2, { title: { en: 'Colosseum night tour' }, about: { en: 'Underground and arena' }, feature_codes: [], flavour_ids: [], service_codes: ['audio-guide'], duration_range: { min: 'PT3H', max: 'PT3H' } }),
  activity(3, { title: { en: 'Louvre guided visit', it: 'Visita guidata al Louvre' }, venue_ids: [], booking: { ...b, languages: ['fr'], weekdays: [6] }, supplier: { uuid: 'seller-x', company_name: 'X' }, duration_range: null }),
  activity(4, { title: { en: 'Eiffel tower summit' }, booking: { ...b, pickups: [{ uuid: 'pick-1', type: 'PICKUP', name: 'Station', latitude: 0, longitude: 0 }] } }),
];
const catalog = catalogOf(list);
const uuids = (body: { data: { uuid: string }[] }) => body.data.map((a) => Number(a.uuid.slice(-2)));

t.test('every search parameter filters', async (t) => {
  const app = await buildTestApp({ catalog, clock: fixedClock('2026-01-15T10:00:00Z') });
  t.teardown(() => app.close());
  const search = async (qs: string, status = 200, headers: Record<string, string> = {}) => {
    const res = await app.inject({ url: `/api/v3/activities?limit=100&${qs}`, headers: { ...H, ...headers } });
    t.equal(res.statusCode, status, `${qs} -> ${status}: ${res.body.slice(0, 200)}`);
    return res.json();
  };
  const cases: [string, number[]][] = [
    ['venue_in=100', [1, 2, 4]],
    ['feature_in=skip-the-line', [1, 3, 4]],
    ['flavour_in=7', [1, 3, 4]],
    ['flavour_not_in=7', [2]],
    ['service_in=audio-guide', [2]],
    ['seller_in=seller-x', [3]],
    ['pickup_in=pick-1', [4]],
    ['available_language_in=fr', [3]],
    ['vertical_in=museums', [2, 4]],
    ['temporary=YES', [1]],
    ['discounted=NO', [1]],
    ['default_price_range=22,23.5', [1]],
    ['default_price_range=0,23&sort_by=price', [1]],
    ['duration_range=PT2H30M,PT4H', [2, 4]],
    ['available_from=2026-01-17&available_to=2026-01-17', [1, 2, 3, 4]],
    ['available_from=2026-01-16&available_to=2026-01-16', [1, 2, 4]],
    ['coordinates=48.85,2.35&distance=10KM', []],
    ['coordinates=41.9,12.5&distance=1KM', [1, 2, 3, 4]],
    ['text=louvre', [3]],
    ['text=visita&extend_other_languages=NO', []],
    ['text=visita', [3]],
    ['text=arena&extend_content_fields=NO', []],
    ['text=arena', [2]],
    ['text=colloseum', []],
    ['text=colloseum&fuzziness_level=AUTO', [2]],
    ['text=the', []],
    ['text=the&zero_terms_query=ALL', [1, 2, 3, 4]],
    ['preferred_seller_code=seller-x&preferred_seller_boost=2', [3, 1, 2, 4]],
  ];
  for (const [qs, expected] of cases) t.same(uuids(await search(qs)), expected, qs);

  t.test('the price range is in the request currency', async (t) => {
    t.same(uuids(await search('default_price_range=21,22.5', 200, { 'x-service-currency': 'EUR' })), [1, 2]);
  });

  t.test('facets count the matching activities', async (t) => {
    const body = await search('include_facets=city,feature,temporary');
    const city = body.facets.find((f: { key: string }) => f.key === 'city');
    t.same(city.values.map((v: { key: string; value: number }) => [v.key, v.value]), [['10', 2], ['20', 2]]);
    t.equal(city.query_param, 'city_in');
    const feature = body.facets.find((f: { key: string }) => f.key === 'feature');
    t.same(feature.values.map((v: { key: string; value: number }) => [v.key, v.value]), [['skip-the-line', 3]]);
    t.notOk('facets' in (await search('')), 'no facets unless asked');
  });

  for (const qs of ['default_price_range=5', 'default_price_range=9,1', 'duration_range=1h,2h', 'distance=10KM', 'distance=far&coordinates=1,1', 'venue_in=x', 'temporary=MAYBE', 'include_facets=colour', 'fuzziness_level=LEVEL-9', 'available_from=someday']) {
    t.test(`400 for ${qs}`, async (t) => {
      t.equal((await search(qs, 400)).code, '0');
    });
  }
});
