// The control API's own OpenAPI document and Swagger UI at /__admin/docs, apart from the partner /docs.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { FastifyInstance, RouteOptions } from 'fastify';
import t from 'tap';
import { buildTestApp } from '../helper.js';

type Op = { summary?: string; tags?: string[]; security?: unknown; responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> };

/** An app and every route it registered (Fastify announces each new instance on this channel). */
async function appAndRoutes(config: Parameters<typeof buildTestApp>[0] = {}) {
  const routes: RouteOptions[] = [];
  const onInit = (message: unknown) => (message as { fastify: FastifyInstance }).fastify.addHook('onRoute', (r) => void routes.push(r));
  subscribe('fastify.initialization', onInit);
  try {
    return { app: await buildTestApp(config), routes };
  } finally {
    unsubscribe('fastify.initialization', onInit);
  }
}

/** "METHOD /path/{param}" of every documented control route: not HEAD, not hidden, not the docs' own or the dashboard's files. */
function controlRoutes(routes: RouteOptions[]): string[] {
  return routes
    .filter((r) => r.url.startsWith('/__admin/') && !r.url.startsWith('/__admin/docs') && !/^\/__admin\/ui(\/|$)/.test(r.url))
    .filter((r) => !(r.schema as { hide?: boolean } | undefined)?.hide)
    .flatMap((r) => [r.method].flat().filter((m) => m !== 'HEAD').map((m) => `${m} ${r.url.replace(/:(\w+)/g, '{$1}')}`))
    .sort();
}

const operations = (doc: { paths: Record<string, Record<string, Op>> }) =>
  Object.fromEntries(Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([m, op]) => [`${m.toUpperCase()} ${path}`, op] as const)));

t.test('GET /__admin/docs is Swagger UI; /__admin/docs/json documents every control route', async (t) => {
  const { app, routes } = await appAndRoutes();
  t.teardown(() => app.close());
  for (const url of ['/__admin/docs', '/__admin/docs/']) {
    const ui = await app.inject({ url });
    t.equal(ui.statusCode, 200, url);
    t.match(ui.headers['content-type'], /text\/html/);
  }
  const res = await app.inject({ url: '/__admin/docs/json' });
  t.equal(res.statusCode, 200);
  const doc = res.json();
  t.match(doc.openapi, /^3\./);
  t.match(doc.info.title, /control API/);
  const ops = operations(doc);
  const expected = controlRoutes(routes);
  t.ok(expected.length >= 22, `the control routes were collected (${expected.length})`);
  t.same(Object.keys(ops).sort(), expected, 'every control route, and only those');
  for (const [key, op] of Object.entries(ops)) {
    t.ok(op.summary && !op.summary.includes('\n'), `${key}: a one-line summary`);
    t.ok(op.tags?.length === 1 && (doc.tags as { name: string }[]).some((x) => x.name === op.tags?.[0]), `${key}: a declared tag (${op.tags})`);
    t.notOk(op.security, `${key}: no token without --admin-token`);
  }
  t.ok(Object.keys(doc.paths).every((p) => p.startsWith('/__admin/')), 'nothing of the partner API');
  // Existing schemas are shown; error answers are {code, message}.
  t.ok(ops['POST /__admin/clock']?.summary);
  const clock = doc.paths['/__admin/clock'].post;
  t.ok(clock.requestBody.content['application/json'].schema.properties.advance, 'the body schema');
  t.match(clock.responses['400'].content['application/json'].schema, { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' } } });
  t.ok(doc.paths['/__admin/requests'].get.parameters.some((p: { name: string }) => p.name === 'limit'), 'the query schema');
  t.ok(doc.paths['/__admin/scenarios/{name}/run'].post.requestBody, 'the run body, documented only');
  t.match(doc.paths['/__admin/scenarios/{name}/run'].post.responses['409'], { description: /run is going/, content: { 'application/json': { schema: { required: ['code', 'message'], properties: { run: { properties: { name: {}, started_at: {}, steps_done: {} } } } } } } }, "the 409 of a second start, with the run it found");
  t.ok(doc.paths['/__admin/webhooks/deliveries/{id}/redeliver'].post.parameters.some((p: { in: string; name: string }) => p.in === 'path' && p.name === 'id'));
});

t.test('documentation only: validation and answers are as before', async (t) => {
  const { app } = await appAndRoutes();
  t.teardown(() => app.close());
  const bad = await app.inject({ method: 'POST', url: '/__admin/clock', payload: { nonsense: true } });
  t.equal(bad.statusCode, 400);
  t.same(Object.keys(bad.json()).sort(), ['code', 'message']);
  const run = await app.inject({ method: 'POST', url: '/__admin/scenarios/nope/run', payload: 'not an object', headers: { 'content-type': 'application/json' } });
  t.not(run.statusCode, 500, `the run body is still checked by hand (${run.statusCode})`);
  const health = (await app.inject({ url: '/__admin/health' })).json();
  t.ok(health.store && health.uptime_s !== undefined, 'no field stripped from a 2xx answer');
  const fault = await app.inject({ method: 'POST', url: '/__admin/faults', payload: { method: 'GET', path: '/currencies', status: 503 } });
  t.equal(fault.statusCode, 201, fault.body);
});

t.test('with --admin-token: the document declares the bearer scheme; the docs stay open, the control API does not', async (t) => {
  const { app } = await appAndRoutes({ config: { adminToken: 'admin-s3cret' } });
  t.teardown(() => app.close());
  t.equal((await app.inject({ url: '/__admin/docs/' })).statusCode, 200, 'a browser can open the page');
  const res = await app.inject({ url: '/__admin/docs/json' });
  t.equal(res.statusCode, 200);
  const doc = res.json();
  t.notMatch(res.body, 'admin-s3cret', 'the token is not in the document');
  t.match(doc.components.securitySchemes.AdminToken, { type: 'http', scheme: 'bearer' });
  t.match(doc.components.securitySchemes.PartnerToken, { type: 'http', scheme: 'bearer' });
  for (const [key, op] of Object.entries(operations(doc))) {
    if (key === 'GET /__admin/health') t.notOk(op.security, 'health needs no token');
    else {
      // The admin token everywhere; a partner's token where the operation says it may be used.
      const partner = (op as { 'x-partner-token'?: string })['x-partner-token'];
      t.same(op.security, partner === 'admin-only' ? [{ AdminToken: [] }] : [{ AdminToken: [] }, { PartnerToken: [] }], key);
      t.ok(op.responses?.['401'], `${key}: 401 documented`);
    }
  }
  t.equal(doc.paths['/__admin/clients'].post['x-partner-token'], 'admin-only', 'partner registration is the admin token’s');
  t.equal(doc.paths['/__admin/orders'].get['x-partner-token'], 'own-application');
  t.equal(doc.paths['/__admin/scenarios'].get['x-partner-token'], 'any');
  t.equal((await app.inject({ url: '/__admin/orders' })).statusCode, 401, 'the control API still wants the token');
});

t.test('the partner /docs is unchanged: no /__admin path, the same paths', async (t) => {
  const { app, routes } = await appAndRoutes();
  t.teardown(() => app.close());
  const doc = (await app.inject({ url: '/docs/json' })).json();
  const paths = Object.keys(doc.paths);
  t.notOk(paths.some((p) => p.includes('__admin')), 'no control route');
  t.same(doc.servers, [{ url: '/api/v3' }]);
  // Its paths are those of the tagged partner routes, as before: nothing of the control API came in.
  const partner = new Set(
    routes
      .filter((r) => r.url.startsWith('/api/v3/') && r.method !== 'HEAD' && (r.schema as { tags?: string[]; hide?: boolean } | undefined)?.tags?.length && !(r.schema as { hide?: boolean }).hide)
      .map((r) => r.url.slice('/api/v3'.length).replace(/:(\w+)/g, '{$1}')),
  );
  t.equal(paths.length, partner.size, `${paths.length} paths, one per documented partner route`);
  t.equal(paths.length, 80, 'as many paths as before the control API had its own document');
});
