import t from 'tap';
import { buildTestApp, H } from '../helper.js';
import { activity, catalogOf } from './records.js';

const plain = activity(1, { flavour_ids: [] });
const rich = activity(2, {
  destination_city_ids: [20],
  media: [
    { id: 1, type: 'image', title: { en: 'Front', it: 'Facciata' }, url: 'https://images.example.com/1.jpg', is_cover: false },
    { id: 2, type: 'video', title: { en: 'Clip' }, url: 'https://videos.example.com/2.mp4', is_cover: false },
  ],
  booking: {
    ...activity(2).booking,
    languages: ['en', 'it', 'en'],
    pickups: [{ uuid: 'aaaaaaaa-0000-4000-8000-000000000001', type: 'HOTEL', name: 'Hotel Roma', latitude: 41.9, longitude: 12.5 }],
    refund_policies: [
      { uuid: 'bbbbbbbb-0000-4000-8000-000000000001', period: 'P3D', type: 'PERCENTAGE', value: 100 },
      { uuid: 'bbbbbbbb-0000-4000-8000-000000000002', period: 'P1D', type: 'ABSOLUTE', value: 10 },
    ],
    extra_customer_data: [
      { name: 'phone_number', type: 'string', title: { en: 'Phone number', it: 'Telefono' }, required: true },
      { name: 'hotel', type: 'string', title: { en: 'Hotel' }, required: false },
    ],
    participant_fields: [
      { name: 'firstname', type: 'string', title: { en: 'First name' }, required: true },
      { name: 'date_of_birth', type: 'string', title: { en: 'Date of birth' }, required: true, format: 'date' },
    ],
  },
});
const noLanguages = activity(3, { booking: { ...activity(3).booking, languages: [] } });
const catalog = catalogOf([plain, rich, noLanguages]);

t.test('activity information endpoints', async (t) => {
  const app = await buildTestApp({ catalog });
  t.teardown(() => app.close());
  const get = async (url: string, status = 200, headers: Record<string, string> = {}) => {
    const res = await app.inject({ url: `/api/v3/activities/${url}`, headers: { ...H, ...headers } });
    t.equal(res.statusCode, status, `${url} -> ${status}: ${res.body.slice(0, 200)}`);
    return res.body ? res.json() : undefined;
  };

  t.same((await get(`${rich.uuid}/media`, 200, { 'accept-language': 'it' })).map((m: { title: string }) => m.title), ['Facciata', 'Clip']);
  t.match(await get(`${plain.uuid}/media`, 404), { code: '1400' });
  t.same(await get(`${rich.uuid}/flavours`), [{ id: 7, name: 'Family', slug: 'family', active: true }]);
  t.same(await get(`${plain.uuid}/flavours`), []);
  t.match(await get(`${rich.uuid}/country`), { iso_code: 'IT', iso3char: 'ITA', country_prefix: '+39', currency_code: 'EUR' });
  const destinations = await get(`${rich.uuid}/destinations`);
  t.same(destinations.map((d: { id: number; default: boolean }) => [d.id, d.default]), [[10, true], [20, false]]);
  t.same(await get(`${rich.uuid}/metadata/languages`), { languages: ['en', 'it'] });
  t.equal(await get(`${noLanguages.uuid}/metadata/languages`, 204), undefined);
  t.same(await get(`${rich.uuid}/pickups`), [{ uuid: 'aaaaaaaa-0000-4000-8000-000000000001', type: 'HOTEL', name: 'Hotel Roma', latitude: 41.9, longitude: 12.5, tags: [] }]);
  t.same(await get(`${plain.uuid}/pickups`), []);

  const policies = await get(`${rich.uuid}/refund-policies`);
  t.same(policies[1], { uuid: 'bbbbbbbb-0000-4000-8000-000000000002', period: 'P1D', type: 'ABSOLUTE', value: 10, currency_code: 'EUR' });
  t.notOk('currency_code' in policies[0]);
  t.same(await get(`${plain.uuid}/refund-policies`), [], '3.5.0: an empty list');
  t.match(await get(`${plain.uuid}/refund-policies`, 404, { 'x-service-version': '3.4.0' }), { code: '1400', message: 'No refund policy version for the activity' });

  const ecd = await get(`${rich.uuid}/extra-customer-data/schema`, 200, { 'accept-language': 'it-IT' });
  t.same(ecd, {
    title: 'extra_customer_data',
    type: 'object',
    properties: { phone_number: { type: 'string', title: 'Telefono', propertyOrder: 1 }, hotel: { type: 'string', title: 'Hotel', propertyOrder: 2 } },
    required: ['phone_number'],
  });
  t.match(await get(`${plain.uuid}/extra-customer-data/schema`, 404), { code: '1400' });
  const participants = await get(`${rich.uuid}/participants-info/schema`);
  t.equal(participants.title, 'cart_item_participants_info');
  t.same(participants.required, ['participants']);
  t.same(participants.properties.participants.items.required, ['firstname', 'date_of_birth']);
  t.equal(participants.properties.participants.items.properties.date_of_birth.format, 'date');
  t.match(await get(`${plain.uuid}/participants-info/schema`, 404), { code: '1400' });

  for (const path of ['media', 'flavours', 'country', 'destinations', 'metadata/languages', 'pickups', 'refund-policies', 'extra-customer-data/schema', 'participants-info/schema']) {
    t.match(await get(`99999999-9999-4999-8999-999999999999/${path}`, 404), { code: '1400' }, path);
    t.match(await get(`nope/${path}`, 400), { code: '0' }, path);
  }
});

t.test('destinations: PUT and DELETE per application', async (t) => {
  const app = await buildTestApp({ catalog });
  t.teardown(() => app.close());
  const call = (method: 'GET' | 'PUT' | 'DELETE', path: string, application = 'app-a') =>
    app.inject({ method, url: `/api/v3/activities/${rich.uuid}/destinations${path}`, headers: { 'x-service-application': application } });
  const ids = async (application = 'app-a') => (await call('GET', '', application)).json().map((d: { id: number }) => d.id);
  t.same(await ids(), [10, 20]);
  t.equal((await call('DELETE', '/20')).statusCode, 204);
  t.same(await ids(), [10]);
  t.same(await ids('app-b'), [10, 20], 'another application is unaffected');
  t.equal((await call('PUT', '/20')).statusCode, 204);
  t.equal((await call('PUT', '/20')).statusCode, 204, 'idempotent');
  t.same(await ids(), [10, 20]);
  t.match((await call('DELETE', '/10')).json(), { code: '0', message: /default destination/ });
  t.match((await call('PUT', '/999')).json(), { code: '1400' });
  t.equal((await call('DELETE', '/999')).statusCode, 404);
  t.equal((await app.inject({ method: 'PUT', url: '/api/v3/activities/99999999-9999-4999-8999-999999999999/destinations/10', headers: H })).statusCode, 404);
  const other = await app.inject({ method: 'DELETE', url: `/api/v3/activities/${plain.uuid}/destinations/10`, headers: H });
  t.equal(other.statusCode, 404, 'not a destination of that activity');
});
