// The endpoints over the real seeded catalog (fixtures + generated), not hand-built records.
import t from 'tap';
import { Value } from 'typebox/value';
import { ActivitySchema } from '../../src/catalog/activities.schemas.js';
import { buildTestApp, H } from '../helper.js';

t.test('every seeded activity renders to a valid Activity in every language and currency', async (t) => {
  const app = await buildTestApp({ config: { catalogSize: 60 } });
  t.teardown(() => app.close());
  const problems: string[] = [];
  for (const [lang, currency] of [['en-US', 'USD'], ['it-IT', 'EUR'], ['de-DE', 'GBP'], ['fr-FR', 'JPY'], ['es-ES', 'AED']]) {
    for (const a of app.catalog.activities) {
      const res = await app.inject({ url: `/api/v3/activities/${a.uuid}`, headers: { ...H, 'accept-language': lang!, 'x-service-currency': currency! } });
      if (res.statusCode === 403) continue;
      const body = res.json();
      if (!Value.Check(ActivitySchema, body)) problems.push(`${a.uuid} ${lang}: ${JSON.stringify([...Value.Errors(ActivitySchema, body)][0])}`);
      if (body.retail_price?.currency !== currency) problems.push(`${a.uuid}: currency`);
      const l = lang!.slice(0, 2);
      if (body.translated !== a.content_languages.includes(l as 'en')) problems.push(`${a.uuid} ${lang}: translated`);
    }
  }
  t.same(problems.slice(0, 3), []);
});

t.test('a fixture by its sandbox uuid, in Italian', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const res = await app.inject({ url: '/api/v3/activities/5a002d99-781b-479b-9a9d-9efadfd34ec2', headers: { ...H, 'accept-language': 'it-IT' } });
  t.equal(res.statusCode, 200);
  t.match(res.json(), { title: 'Visita guidata al Colosseo con fasce orarie', translated: true, city: { name: 'Roma' }, booking_type: 'CALENDAR-TIMESLOTS' });
  const draft = await app.inject({ url: '/api/v3/activities/a0000000-0000-4000-8000-000000000010', headers: H });
  t.equal(draft.statusCode, 403);
  const day = await app.inject({ url: '/api/v3/activities/a0000000-0000-4000-8000-000000000003/dates/2026-02-13', headers: H });
  t.match([day.statusCode, day.json().code], [422, '2201']);
});

t.test('merchant_price appears with a valid token and only then', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const login = await app.inject({
    method: 'POST', url: '/api/v3/login', headers: H,
    payload: { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' },
  });
  t.equal(login.statusCode, 200);
  const token = login.json().access_token as string;
  const url = '/api/v3/activities/4e451a8a-2ee5-493f-aa12-a39f13d7253e';
  const authed = await app.inject({ url, headers: { ...H, authorization: `Bearer ${token}` } });
  t.ok(authed.json().merchant_price, 'authenticated: merchant_price');
  const anon = await app.inject({ url, headers: H });
  t.notOk('merchant_price' in anon.json(), 'anonymous: none');
  const bad = await app.inject({ url, headers: { ...H, authorization: 'Bearer nope' } });
  t.equal(bad.statusCode, 401);
  const schedule = await app.inject({ url: `${url}/dates/2026-01-20`, headers: { ...H, authorization: `Bearer ${token}` } });
  t.ok(schedule.json()[0].groups[0].slots[0].products[0].merchant_price, 'products too');
  const list = await app.inject({ url: '/api/v3/activities?limit=5', headers: { ...H, authorization: `Bearer ${token}` } });
  t.ok(list.json().data.every((a: { merchant_price?: unknown }) => a.merchant_price));
});
