import t from 'tap';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCatalog } from '../../src/seed/catalog.js';
import { loadFixtures } from '../../src/seed/fixtures.js';
import { builtinFixturesDir } from '../../src/paths.js';
import { durationToMs, parseDuration } from '../../src/time/duration.js';
import { tempDir } from '../tmp.js';

const build = (seed = 1, catalogSize = 300, fixtures: string | null = null) => buildCatalog({ seed, catalogSize, fixtures });
const FIXTURES = 20;

t.test('same seed, same bytes; another seed, other data', async (t) => {
  const [a, b, c] = await Promise.all([build(7), build(7), build(8)]);
  const data = (x: typeof a) => JSON.stringify({ ...x, currencyByCode: null, activityByUuid: null, cityById: null, countryById: null, venueById: null, categoryById: null, flavourById: null });
  t.equal(data(a), data(b), 'the whole catalog data, byte for byte');
  t.equal(JSON.stringify(a.activities), JSON.stringify(b.activities));
  t.not(JSON.stringify(a.activities), JSON.stringify(c.activities));
  t.same(a.activities.slice(0, FIXTURES), c.activities.slice(0, FIXTURES), 'fixtures do not depend on the seed');
});

t.test('catalog size is the number of generated activities', async (t) => {
  t.equal((await build(1, 0)).activities.length, FIXTURES);
  t.equal((await build(1, 25)).activities.length, FIXTURES + 25);
});

t.test('generated activities are coherent', async (t) => {
  const catalog = await build(3, 1000);
  const generated = catalog.activities.slice(FIXTURES);
  t.same(new Set(generated.map((a) => a.booking_type)).size, 4, 'every booking type appears');
  t.ok(generated.some((a) => a.content_languages.length === 5) && generated.some((a) => a.content_languages.length === 1), 'a share is translated');
  const problems: string[] = [];
  const ms = (d: string) => durationToMs(parseDuration(d));
  for (const a of generated) {
    const p = (why: string) => problems.push(`${a.uuid}: ${why}`);
    for (const field of ['title', 'about', 'meta_title', 'meeting_point'] as const) {
      if (Object.keys(a[field]).sort().join() !== [...a.content_languages].sort().join()) p(`${field} languages`);
    }
    if (a.content_languages.length > 1 && a.title.it === a.title.en) p('translation equals English');
    if (a.machine_translated.some((l) => !a.content_languages.includes(l) || l === 'en')) p('machine_translated');
    const r = a.duration_range;
    if (r && r.min && r.max && ms(r.min) > ms(r.max)) p('duration min > max');
    if (!(a.original_retail_price >= a.retail_price && a.service_fee < a.retail_price && a.merchant_price < a.retail_price)) p('prices');
    if (!catalog.currencyByCode.has(a.supplier_currency)) p('currency');
    const stars = Object.values(a.reviews_aggregated_info).reduce((x, y) => x + y, 0);
    if (stars !== a.reviews_number || a.reviews_avg < 1 || a.reviews_avg > 5) p('reviews');
    const timed = a.booking_type === 'CALENDAR-TIMESLOTS';
    if (timed !== a.booking.timeslots.length > 0) p('timeslots vs booking type');
    if (a.booking.options.some((o) => (o.type === 'TIME-BASED') !== timed)) p('option type');
    if (a.booking.options.filter((o) => o.default).length !== 1) p('one default option');
    if (!catalog.cityById.has(a.city_id) || a.category_ids.some((id) => !catalog.categoryById.has(id))) p('references');
    if (a.bundle_uuids.some((u) => !catalog.activityByUuid.has(u))) p('bundle');
  }
  t.same(problems.slice(0, 5), []);
  const ranges = generated.map((a) => a.duration_range);
  t.ok(ranges.some((r) => r === null), 'absent: validity instead');
  t.ok(ranges.some((r) => r?.min && r.min === r.max && r.min !== 'P0D'), 'single period');
  t.ok(ranges.some((r) => r?.min && r.max && r.min !== r.max && r.min !== 'P0D'), 'range');
  t.ok(ranges.some((r) => r && !r.min) && ranges.some((r) => r && !r.max), 'one side unknown');
  t.ok(ranges.some((r) => r?.min === 'P0D' && r.max === 'P0D') && ranges.some((r) => r?.min === 'P0D' && r.max !== 'P0D'), 'P0D on both or one side');
  const online = generated.filter((a) => a.status === 'ONLINE').length;
  t.ok(online > generated.length * 0.9 && online < generated.length, 'mostly ONLINE, a few others');
  t.ok(generated.some((a) => a.needs_voucher) && generated.some((a) => !a.needs_voucher), 'needs_voucher mix');
  t.ok(new Set(generated.map((a) => a.reviews_number)).size > 100, 'review counts vary past the json-schema-faker pool');
  t.ok(generated.some((a) => a.bundle_uuids.length) && generated.some((a) => !a.bundle_uuids.length), 'with and without bundles');
  t.ok(generated.some((a) => a.booking.pickups.length) && generated.some((a) => a.booking.extra_customer_data.length) && generated.some((a) => a.booking.participant_fields.length));
});

t.test('fixtures hold each edge case under its fixed uuid', async (t) => {
  const c = await build(1, 0);
  const get = (u: string) => {
    const a = c.activityByUuid.get(u);
    if (!a) throw new Error(`missing fixture ${u}`);
    return a;
  };
  t.equal(get('5a002d99-781b-479b-9a9d-9efadfd34ec2').booking_type, 'CALENDAR-TIMESLOTS');
  t.equal(get('d38cea83-02f6-47b3-abd6-5abbf812e27a').booking_type, 'CALENDAR-NO-TIMESLOTS');
  t.equal(get('82f6f46c-3923-4510-b5ba-b50aad624eb1').booking_type, 'NO-CALENDAR-FIXED-VALIDITY');
  t.equal(get('a0000000-0000-4000-8000-000000000001').booking_type, 'NO-CALENDAR-FIXED-END');
  t.ok(get('1714c6a7-2046-11e7-9cc9-06a7e332783f').booking.extra_customer_data.length);
  t.ok(get('0420c908-981e-4e27-a40f-767e8b66574a').booking.participant_fields.length);
  t.equal(get('0f5821c5-2046-11e7-9cc9-06a7e332783f').needs_voucher, true);
  t.equal(get('4e451a8a-2ee5-493f-aa12-a39f13d7253e').needs_voucher, false);
  t.equal(get('df542cb8-8fca-44d0-94e6-715399c783f0').booking.pickups.length, 2);
  t.equal(get('df542cb8-8fca-44d0-94e6-715399c783f0').booking.options.length, 2);
  t.equal(get('a0000000-0000-4000-8000-000000000002').flags.sold_out, true);
  t.ok(get('a0000000-0000-4000-8000-000000000003').booking.unavailable_dates.includes('2026-12-13'));
  t.equal(get('a0000000-0000-4000-8000-000000000004').bundle_uuids.length, 2);
  t.same(get('a0000000-0000-4000-8000-000000000005').booking.languages, ['it', 'de'], 'guides without English');
  t.equal(get('0f641d85-2046-11e7-9cc9-06a7e332783f').booking.refund_policies.length, 3);
  t.same(['10', '11', '12', '13'].map((n) => get(`a0000000-0000-4000-8000-0000000000${n}`).status), ['DRAFT', 'REVIEW', 'ARCHIVED', 'UNAVAILABLE']);
  t.equal(get('4e451a8a-2ee5-493f-aa12-a39f13d7253e').retail_price, 39, 'prices default from the default holder');
});

t.test('fixture activities are translated in full and coherent', async (t) => {
  const c = await build(1, 0);
  const problems: string[] = [];
  for (const a of c.activities) {
    const p = (why: string) => problems.push(`${a.uuid}: ${why}`);
    t.same([...a.content_languages].sort(), ['de', 'en', 'es', 'fr', 'it'], `${a.uuid} in five languages`);
    for (const field of ['title', 'about', 'meta_title', 'meta_description', 'highlights', 'included', 'not_included', 'info', 'meeting_point', 'operational_days'] as const) {
      const langs = Object.keys(a[field]).sort().join();
      if (langs !== [...a.content_languages].sort().join()) p(`${field} in ${langs}`);
      if (JSON.stringify(a[field].it) === JSON.stringify(a[field].en) && JSON.stringify(a[field].en) !== '[]' && a[field].en !== '') p(`${field}: it equals en`);
    }
    if (!(a.original_retail_price >= a.retail_price && a.service_fee < a.retail_price && a.merchant_price < a.retail_price) && a.retail_price > 0) p('prices');
    if (a.status === 'ONLINE' && (a.booking_type === 'CALENDAR-TIMESLOTS') !== a.booking.timeslots.length > 0) p('timeslots vs booking type');
  }
  t.same(problems, []);
});

t.test('the built-in fixtures pass the checks a user fixture directory gets', async (t) => {
  // Start-up trusts the built-in files; this is where they are held to the same schemas.
  const asUserFiles = loadFixtures(t.testdir(), join(builtinFixturesDir, 'catalog'));
  t.equal(asUserFiles.activities.length, FIXTURES);
  t.same(asUserFiles, loadFixtures(builtinFixturesDir, null));
});

t.test('clients.json and merchant-tags.json in a --fixtures directory are left to their own loaders', async (t) => {
  const dir = t.testdir({
    'clients.json': JSON.stringify({ clients: [{ client_id: 'ci', client_secret: 's', scopes: ['no-payment'], applications: '*' }] }),
    'merchant-tags.json': JSON.stringify({ merchant_tags: {} }),
  });
  const c = await build(1, 0, dir);
  t.equal(c.activities.length, FIXTURES);
});

t.test('--fixtures merges a directory over the built-in fixtures', async (t) => {
  const dir = tempDir(t, 'fixtures-');
  writeFileSync(join(dir, 'mine.json'), JSON.stringify({
    cities: [{ id: 99, code: 'turin', slug: 'turin', name: { en: 'Turin', it: 'Torino' }, country_id: 1, latitude: 45.07, longitude: 7.68, time_zone: 'Europe/Rome', top: false, weight: 1, content: { en: '' }, headline: { en: '' }, meta_title: { en: '' }, meta_description: { en: '' }, cover_image_url: '', url: '' }],
    activities: [
      { uuid: '4e451a8a-2ee5-493f-aa12-a39f13d7253e', id: 100003, title: { en: 'Overridden' }, city_id: 5 },
      { uuid: 'e0000000-0000-4000-8000-000000000001', id: 900001, title: { en: 'Egyptian Museum' }, city_id: 99 },
    ],
  }));
  const c = await build(1, 0, dir);
  t.equal(c.activities.length, FIXTURES + 1);
  t.equal(c.activityByUuid.get('4e451a8a-2ee5-493f-aa12-a39f13d7253e')?.title.en, 'Overridden');
  t.equal(c.activityByUuid.get('e0000000-0000-4000-8000-000000000001')?.city_id, 99);
  t.equal(c.cityById.get(99)?.name.it, 'Torino');
});

t.test('a bad fixture file fails naming file and field', async (t) => {
  const cases: [string, string, RegExp][] = [
    ['json.json', '{ not json', /json\.json: not valid JSON/],
    ['enum.json', JSON.stringify({ activities: [{ uuid: 'e0000000-0000-4000-8000-000000000002', id: 5, title: { en: 'x' }, city_id: 1, booking_type: 'SOMETIMES' }] }), /enum\.json: \/activities\/0\/booking_type must be equal to one of the allowed values: \["CALENDAR-TIMESLOTS"/],
    ['type.json', JSON.stringify({ activities: [{ uuid: 'e0000000-0000-4000-8000-000000000002', id: 5, title: { en: 'x' }, city_id: 1, booking: { availability: 'lots' } }] }), /type\.json: \/activities\/0\/booking\/availability must be integer/],
    ['extra.json', JSON.stringify({ activities: [{ uuid: 'e0000000-0000-4000-8000-000000000002', id: 5, title: { en: 'x' }, city_id: 1, colour: 'red' }] }), /extra\.json: \/activities\/0 must NOT have additional properties: \["colour"\]/],
    ['uuid.json', JSON.stringify({ activities: [{ uuid: 'nope' }] }), /uuid\.json: \/activities\/0\/uuid must match pattern/],
    ['list.json', JSON.stringify({ cities: {} }), /list\.json: \/cities must be array/],
    ['ref.json', JSON.stringify({ activities: [{ uuid: 'e0000000-0000-4000-8000-000000000002', id: 5, title: { en: 'x' }, city_id: 4242 }] }), /activity e0000000-0000-4000-8000-000000000002 refers to city_id 4242, which does not exist/],
    ['bundle.json', JSON.stringify({ activities: [{ uuid: 'e0000000-0000-4000-8000-000000000002', id: 5, title: { en: 'x' }, city_id: 1, bundle_uuids: ['e0000000-0000-4000-8000-00000000ffff'] }] }), /refers to bundle activity e0000000-0000-4000-8000-00000000ffff/],
    ['currency.json', JSON.stringify({ activities: [{ uuid: 'e0000000-0000-4000-8000-000000000002', id: 5, title: { en: 'x' }, city_id: 1, supplier_currency: 'XXX' }] }), /supplier_currency XXX/],
  ];
  for (const [name, body, re] of cases) {
    const dir = tempDir(t, 'badfix-');
    writeFileSync(join(dir, name), body);
    await t.rejects(build(1, 0, dir), { name: 'FixtureError', userFacing: true, message: re }, name);
  }
  await t.rejects(build(1, 0, join(tmpdir(), 'no-such-dir-here')), { name: 'FixtureError', message: /does not exist/ });
});
