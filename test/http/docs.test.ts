import t from 'tap';
import { buildTestApp } from '../helper.js';

t.test('Swagger UI and the OpenAPI document', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const ui = await app.inject({ url: '/docs/' });
  t.equal(ui.statusCode, 200);
  t.match(ui.headers['content-type'], /text\/html/);
  const res = await app.inject({ url: '/docs/json' });
  t.equal(res.statusCode, 200);
  const doc = res.json();
  t.match(doc.openapi, /^3\./);
  const paths = Object.keys(doc.paths);
  t.same(doc.servers, [{ url: '/api/v3' }], 'paths are relative to the base path');
  for (const p of ['/activities', '/activities/{activityUuid}', '/currencies', '/login', '/activities/{activityUuid}/dates/{day}']) {
    t.ok(paths.includes(p), p);
  }
  t.notOk(paths.some((p) => p.startsWith('/__admin')), 'the control API stays out');
  const get = doc.paths['/activities'].get;
  t.ok(get.tags.includes('activities'));
  const headers = get.parameters.filter((p: { in: string }) => p.in === 'header').map((p: { name: string }) => p.name);
  t.ok(headers.includes('x-service-application') && headers.includes('accept-language'), 'header rules shown');
  t.ok(get.parameters.some((p: { name: string }) => p.name === 'sort_by'));
  t.equal(doc.paths['/events'].get.deprecated, true);
});
