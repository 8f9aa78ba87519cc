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

t.test('Authorize reaches every operation but the two that issue tokens; groups in booking order; GET / points the way', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const doc = (await app.inject({ url: '/docs/json' })).json();
  const ops = Object.entries(doc.paths as Record<string, Record<string, { security?: unknown }>>).flatMap(([path, item]) => Object.entries(item).map(([m, op]) => [`${m.toUpperCase()} ${path}`, op] as const));
  const without = ops.filter(([, op]) => !op.security).map(([k]) => k);
  t.same(without.sort(), ['GET /login', 'POST /login', 'POST /refresh'], 'only the token-issuing operations go without');
  t.same(Object.fromEntries(ops)['POST /payments/no/payment']?.security, [{ Partner: [] }]);
  t.match(doc.components.securitySchemes.Partner, { type: 'http', scheme: 'bearer', description: /POST \/login .*sandbox-client.*sandbox-secret/ });
  const tags = (doc.tags as { name: string }[]).map((x) => x.name);
  t.ok(tags.indexOf('carts') < tags.indexOf('categories') && tags.indexOf('orders') < tags.indexOf('verticals (deprecated)'), 'carts and orders before the taxonomy, the deprecated groups last');
  t.equal(tags.at(-1), 'events (removed)');
  const root = await app.inject({ url: '/' });
  t.equal(root.statusCode, 200);
  t.match(root.json(), { docs: '/docs', control: '/__admin', api: '/api/v3' });
});
