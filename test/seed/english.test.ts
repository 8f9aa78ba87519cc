// English is the norm of the seeded catalog: a partner's first booking in English must work on
// almost every activity, while a deliberate minority (and one fixture) still lets them meet the
// "language must be one of" refusal.
import t from 'tap';
import { buildTestApp, H, testCatalog } from '../helper.js';

const NO_ENGLISH = 'a0000000-0000-4000-8000-000000000005';

t.test('at seed 1 and size 200, English is offered almost everywhere, but not everywhere', async (t) => {
  const catalog = await testCatalog(1, 200);
  // Searchable: what GET /activities lists. The languages are the ones a cart item must choose from.
  const guided = catalog.activities.filter((a) => a.status === 'ONLINE' && a.booking.languages.length);
  const english = guided.filter((a) => a.booking.languages.includes('en'));
  t.ok(guided.length > 100, `${guided.length} searchable activities with guide languages`);
  t.ok(english.length >= guided.length * 0.9, `${english.length} of ${guided.length} offer English`);
  const generated = catalog.activities.filter((a) => a.id >= 200000);
  t.equal(generated.length, 200);
  const withoutEnglish = generated.filter((a) => a.booking.languages.length && !a.booking.languages.includes('en'));
  t.ok(withoutEnglish.length >= 1, `${withoutEnglish.length} generated activities without English`);
  t.ok(catalog.activities.every((a) => a.content_languages.includes('en')), 'content is always in English');
});

t.test('the fixture without English', async (t) => {
  const catalog = await testCatalog(1, 0);
  const a = catalog.activityByUuid.get(NO_ENGLISH);
  if (!a) throw new Error(`missing fixture ${NO_ENGLISH}`);
  t.equal(a.status, 'ONLINE');
  t.same(a.booking.languages, ['it', 'de']);
  t.notOk(a.booking.languages.includes('en'));
});

t.test('a cart item in English on the fixture is refused naming the languages; in Italian it works', async (t) => {
  const app = await buildTestApp({ config: { catalogSize: 200 } });
  t.teardown(() => app.close());
  const call = (method: 'GET' | 'POST', url: string, payload?: object) =>
    app.inject({ method, url: `/api/v3${url}`, headers: H, ...(payload ? { payload } : {}) });
  const [schedule] = (await call('GET', `/activities/${NO_ENGLISH}/dates/2026-01-20`)).json();
  const product = schedule.groups[0].slots[0].products.find((p: { holder_code: string }) => p.holder_code === 'adult').product_id as string;
  const cart = (await call('POST', '/carts')).json();
  const item = (language: string) => [{ type: 'musement', product_identifier: product, quantity: 1, language }];
  const english = await call('POST', `/carts/${cart.uuid}/items`, item('en'));
  t.equal(english.statusCode, 400);
  t.match(english.json(), { message: /"language" must be one of it, de/ });
  const italian = await call('POST', `/carts/${cart.uuid}/items`, item('it'));
  t.equal(italian.statusCode, 200, italian.statusCode === 200 ? 'in Italian: accepted' : italian.body);
  t.match(italian.json(), { product: { activity_uuid: NO_ENGLISH } });
  t.equal((await call('GET', `/carts/${cart.uuid}`)).json().items.length, 1);
});
