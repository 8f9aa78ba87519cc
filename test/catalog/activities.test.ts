import t from 'tap';
import { Value } from 'typebox/value';
import { ActivitySchema } from '../../src/catalog/activities.schemas.js';
import { buildApp } from '../../src/app.js';
import { buildTestApp, H } from '../helper.js';
import { activity, catalogOf } from './records.js';

const activities = [
  ...Array.from({ length: 25 }, (_, i) => activity(i + 1)),
  activity(90, { status: 'DRAFT' }),
  activity(91, { status: 'REVIEW' }),
  activity(92, { status: 'ARCHIVED' }),
  activity(93, { child_retail_price: 9, title: { en: 'Colosseum underground', it: 'Sotterranei del Colosseo' } }),
];
const catalog = catalogOf(activities);
const uuidOf = (n: number) => activity(n).uuid;

t.test('GET /activities/{uuid}', async (t) => {
  const app = await buildTestApp({ catalog });
  t.teardown(() => app.close());
  const get = (uuid: string, headers: Record<string, string> = {}) =>
    app.inject({ url: `/api/v3/activities/${uuid}`, headers: { ...H, ...headers } });

  t.test('every field of the spec with its type', async (t) => {
    const res = await get(uuidOf(93));
    t.equal(res.statusCode, 200);
    t.match(res.headers['content-type'], /application\/json/);
    const body = res.json();
    t.ok(Value.Check(ActivitySchema, body), JSON.stringify([...Value.Errors(ActivitySchema, body)].slice(0, 3)));
    t.equal(body.uuid, uuidOf(93));
    t.equal(body.slug_id, `colosseum-underground-${1093}`);
    t.equal(body.description, body.meta_description);
    t.same([body.daily, body.open], [false, false]);
    t.same(body.order_box_elements, ['tours-and-activities']);
    t.equal(body.city.name, 'Paris');
    t.equal(body.city.country.iso_code, 'FR');
    t.same(body.features, [{ code: 'skip-the-line', name: 'Skip the line' }]);
    t.equal(body.child_retail_price.currency, 'USD');
    t.notOk('merchant_price' in body, 'no merchant_price without a token');
    t.equal(body.must_see, true);
    t.equal(body.sold_out, false);
  });

  t.test('prices convert to the request currency', async (t) => {
    const usd = (await get(uuidOf(1))).json();
    const eur = (await get(uuidOf(1), { 'x-service-currency': 'EUR' })).json();
    t.same(eur.retail_price, { currency: 'EUR', value: 21, formatted_value: '€21.00', formatted_iso_value: '€21.00' });
    t.equal(usd.retail_price.value, 22.83); // 21 EUR / 0.92
    t.equal(usd.supplier_currency, 'EUR');
    t.equal(eur.service_fee.value, 2);
    t.equal(eur.retail_price_without_service_fee.value, 19);
    t.equal(eur.original_retail_price_without_service_fee.value, 24);
  });

  t.test('the market sets the default currency', async (t) => {
    const body = (await get(uuidOf(1), { 'x-service-market': 'it' })).json();
    t.equal(body.retail_price.currency, 'EUR');
  });

  t.test('language: translation, fallback and flags', async (t) => {
    const it = (await get(uuidOf(93), { 'accept-language': 'it-IT' })).json();
    t.equal(it.title, 'Sotterranei del Colosseo');
    t.equal(it.translated, true);
    t.equal(it.automatically_translated, true);
    t.equal(it.city.name, 'Parigi');
    t.match(it.retail_price.formatted_value, /,/);
    const de = (await get(uuidOf(93), { 'accept-language': 'de-DE' })).json();
    t.equal(de.title, 'Colosseum underground', 'no German content: English');
    t.equal(de.translated, false);
    const ru = (await get(uuidOf(93), { 'accept-language': 'ru-RU' })).json();
    t.equal(ru.title, 'Colosseum underground');
    t.equal(ru.translated, false);
    const en = (await get(uuidOf(93))).json();
    t.equal(en.translated, true);
    t.equal(en.automatically_translated, false);
  });

  t.test('merchant_price only for an authenticated partner', async (t) => {
    // Stands in for the auth plugin: a partner on the request context.
    const partnerApp = await buildApp({ config: app.config, clock: app.clock, catalog });
    t.teardown(() => partnerApp.close());
    partnerApp.addHook('preHandler', async (request) => {
      request.service.partner = { clientId: 'sandbox-client', scopes: [] };
    });
    const res = await partnerApp.inject({ url: `/api/v3/activities/${uuidOf(2)}`, headers: { ...H, 'x-service-currency': 'EUR' } });
    t.same(res.json().merchant_price, { currency: 'EUR', value: 17, formatted_value: '€17.00', formatted_iso_value: '€17.00' });
    const anon = (await get(uuidOf(2), { 'x-service-currency': 'EUR' })).json();
    t.notOk('merchant_price' in anon);
  });

  t.test('errors: malformed 400, unknown 404 1400, unpublished 403', async (t) => {
    const bad = await get('not-a-uuid');
    t.equal(bad.statusCode, 400);
    t.match(bad.json().message, /activityUuid/);
    const unknown = await get('99999999-9999-4999-8999-999999999999');
    t.same([unknown.statusCode, unknown.json().code], [404, '1400']);
    for (const n of [90, 91]) {
      const res = await get(uuidOf(n));
      t.same([res.statusCode, res.json().code], [403, '0'], `status of ${n}`);
    }
    const archived = await get(uuidOf(92));
    t.equal(archived.statusCode, 200, 'an archived activity is still readable, just not searchable');
    t.equal(archived.json().status, 'ARCHIVED');
  });

  t.test('cached bodies: same bytes twice, different per currency and language', async (t) => {
    const a = (await get(uuidOf(3))).body;
    const b = (await get(uuidOf(3))).body;
    t.equal(a, b);
    t.not((await get(uuidOf(3), { 'x-service-currency': 'GBP' })).body, a);
    t.not((await get(uuidOf(3), { 'accept-language': 'it' })).body, a);
  });
});

t.test('GET /activities search', async (t) => {
  const app = await buildTestApp({ catalog });
  t.teardown(() => app.close());
  const search = async (qs: string, status = 200) => {
    const res = await app.inject({ url: `/api/v3/activities${qs}`, headers: H });
    t.equal(res.statusCode, status, `${qs} -> ${status}: ${res.body.slice(0, 200)}`);
    return res.json();
  };

  t.test('shape, default limit and only ONLINE activities', async (t) => {
    const body = await search('');
    t.equal(body.meta.count, 26);
    t.equal(body.data.length, 10);
    for (const a of body.data) t.ok(Value.Check(ActivitySchema, a));
    t.notOk(body.data.some((a: { status: string }) => a.status !== 'ONLINE'));
  });

  t.test('paging walk visits every item exactly once', async (t) => {
    const seen: string[] = [];
    for (let offset = 0; ; offset += 7) {
      const page = await search(`?limit=7&offset=${offset}`);
      seen.push(...page.data.map((a: { uuid: string }) => a.uuid));
      if (page.data.length < 7) break;
    }
    t.equal(seen.length, 26);
    t.equal(new Set(seen).size, 26);
    t.same((await search('?offset=500')).data, []);
  });

  const filters: [string, (a: { city: { id: number; country: { iso_code: string } }; categories: { code: string }[] }) => boolean, number][] = [
    ['?country_in=IT&limit=100', (a) => a.city.country.iso_code === 'IT', 12],
    ['?country_in=fr,IT&limit=100', () => true, 26],
    ['?city_in=20&limit=100', (a) => a.city.id === 20, 14],
    ['?city_in=10,20&limit=100', () => true, 26],
    ['?category_in=museums&limit=100', (a) => a.categories.some((c) => c.code === 'museums'), 12],
    ['?category_in=museums&category_in=tours&limit=100', () => true, 26],
    ['?text=colosseum', () => true, 1],
    ['?text=COLOSSEUM%20nothing&text_operator=AND', () => true, 0],
    ['?text=colosseum%20nothing', () => true, 1],
    ['?text=Tour%2012&text_operator=AND', () => true, 1],
  ];
  for (const [qs, pred, count] of filters) {
    t.test(`filter ${qs}`, async (t) => {
      const body = await search(qs);
      t.equal(body.meta.count, count);
      t.ok(body.data.every(pred));
    });
  }

  t.test('sorts', async (t) => {
    const rel = (await search('?sort_by=-relevance&limit=100')).data.map((a: { relevance: number }) => a.relevance);
    t.same(rel, [...rel].sort((a, b) => b - a));
    t.same((await search('?limit=100')).data.map((a: { relevance: number }) => a.relevance), rel, 'default is highest relevance first');
    const asc = (await search('?sort_by=relevance&limit=100')).data.map((a: { relevance: number }) => a.relevance);
    t.same(asc, [...rel].reverse());
    const price = (await search('?sort_by=price&limit=100')).data.map((a: { retail_price: { value: number } }) => a.retail_price.value);
    t.same(price, [...price].sort((a, b) => a - b));
    const ext = await search('?sort_by=-relevance-external,relevance&limit=100');
    t.equal(ext.data.length, 26);
    const near = (await search('?sort_by=distance&coordinates=48.85,2.35&limit=100')).data;
    t.equal(near[0].city.id, 20, 'Paris activities first from Paris');
  });

  t.test('bad input is 400 naming the parameter', async (t) => {
    for (const [qs, re] of [
      ['?limit=101', /limit/],
      ['?limit=0', /limit/],
      ['?offset=-1', /offset/],
      ['?limit=abc', /limit/],
      ['?country_in=ITA', /country_in/],
      ['?city_in=rome', /city_in/],
      ['?sort_by=cheapest', /sort_by/],
      ['?sort_by=distance', /coordinates/],
      ['?coordinates=abc', /coordinates/],
      ['?text_operator=XOR', /text_operator/],
    ] as const) {
      const body = await search(qs, 400);
      t.match(body, { code: '0', message: re }, qs);
    }
  });
});
