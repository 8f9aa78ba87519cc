import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { CART_PLACEHOLDER, ORDER_PLACEHOLDER, exampleDay } from '../../src/http/docs-operations.js';
import { buildTestApp } from '../helper.js';

interface Media { example?: unknown; schema?: { properties?: Record<string, unknown>; required?: string[] } }
interface Param { in: string; name: string; example?: unknown; schema?: { example?: unknown } }
interface Operation {
  tags?: string[];
  description?: string;
  parameters?: Param[];
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, { description?: string; content?: Record<string, Media> }>;
}
type Doc = { servers: { url: string }[]; paths: Record<string, Record<string, Operation>> };

const operations = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([m, op]) => [`${m.toUpperCase()} ${path}`, op] as const));

// The examples' day follows the server clock: here the test clock's 2026-01-15, far from real time.
async function appAndDoc(): Promise<{ app: FastifyInstance; doc: Doc }> {
  const app = await buildTestApp();
  const res = await app.inject({ url: '/docs/json' });
  return { app, doc: res.json() as Doc };
}

t.test('every documented operation has a description and its {code, message} error answers', async (t) => {
  const { app, doc } = await appAndDoc();
  t.teardown(() => app.close());
  const ops = operations(doc);
  t.ok(ops.length > 0);
  const problems: string[] = [];
  for (const [key, op] of ops) {
    if (!op.tags?.length) continue;
    if (typeof op.description !== 'string' || op.description.trim() === '') problems.push(`${key}: no description`);
    else if (op.description.includes('\n')) problems.push(`${key}: description longer than one line`);
    const errors = Object.entries(op.responses ?? {}).filter(([status]) => /^[45]\d\d$/.test(status));
    if (!errors.some(([status]) => status.startsWith('4'))) problems.push(`${key}: no 4xx answer`);
    for (const [status, r] of errors) {
      const schema = r.content?.['application/json']?.schema;
      if (!r.description || !schema?.properties?.code || !schema.properties.message || String(schema.required) !== 'code,message') {
        problems.push(`${key}: ${status} is not described with the {code, message} body`);
      }
    }
    if (!Object.keys(op.responses ?? {}).some((s) => s.startsWith('2'))) problems.push(`${key}: no success answer`);
  }
  t.same(problems, [], 'no operation left undocumented');
  const byKey = Object.fromEntries(ops);
  t.match(byKey['GET /activities/{activityUuid}/dates/{day}']?.responses?.['422']?.description, /2201/);
  t.match(byKey['GET /activities/{activityUuid}/dates/{day}']?.responses?.['404']?.description, /1402/);
  t.match(byKey['GET /activities/{activityUuid}/dates']?.responses?.['400']?.description, /1440/);
  t.match(byKey['PUT /carts/{cartUuid}/customer']?.responses?.['423']?.description, /-1/);
  t.match(byKey['GET /activities']?.responses?.['400']?.description, /2271/);
  t.notOk(byKey['POST /login']?.responses?.['200']?.description === 'Default Response', 'success answers are described');
  t.match(byKey['DELETE /orders/{orderUuid}/items/{orderItemUuid}']?.responses, { 204: { description: String } });
});

t.test('a booking plays through with the examples of the document alone', async (t) => {
  const { app, doc } = await appAndDoc();
  t.teardown(() => app.close());
  const byKey = Object.fromEntries(operations(doc));
  const base = doc.servers[0]?.url ?? '';
  const body = (key: string) => {
    const example = byKey[key]?.requestBody?.content?.['application/json']?.example;
    t.not(example, undefined, `${key} has a request body example`);
    return example;
  };
  const header = (key: string, name: string) => {
    const p = byKey[key]?.parameters?.find((x) => x.in === 'header' && x.name === name);
    return (p?.example ?? p?.schema?.example) as string;
  };
  const app_ = header('POST /login', 'x-service-application');
  t.ok(app_, 'the application header has an example');
  t.equal(header('POST /login', 'x-service-version'), '3.5.0', 'the version header has an example too');
  const headers = { 'x-service-application': app_, 'x-service-version': header('POST /carts', 'x-service-version') };
  const send = async (method: 'POST' | 'PUT', key: string, path: string, payload: unknown, extra: Record<string, string> = {}) => {
    const res = await app.inject({ method, url: `${base}${path}`, headers: { ...headers, ...extra }, payload: payload as object });
    t.ok(res.statusCode >= 200 && res.statusCode < 300, `${key} answers ${res.statusCode}: ${res.body.slice(0, 300)}`);
    return res.json();
  };
  /** An example with the placeholder uuids replaced by the ones earlier answers gave. */
  const fill = (example: unknown, ids: Record<string, string>) =>
    JSON.parse(Object.entries(ids).reduce((s, [placeholder, id]) => s.replaceAll(placeholder, id), JSON.stringify(example)));

  const login = await send('POST', 'POST /login', '/login', body('POST /login'));
  t.type(login.access_token, 'string');
  const auth = { authorization: `Bearer ${login.access_token}` };
  const cart = await send('POST', 'POST /carts', '/carts', body('POST /carts'), auth);
  t.type(cart.uuid, 'string');
  const items = body('POST /carts/{cartUuid}/items');
  t.match(JSON.stringify(items), /product_identifier/);
  const item = await send('POST', 'POST /carts/{cartUuid}/items', `/carts/${cart.uuid}/items`, items, auth);
  t.equal(item.status, 'PREBOOK_OK');
  t.match(item.product?.date, new RegExp(`^${exampleDay(app.clock.now())}`), 'the example product is on the documented day');
  const dayParam = byKey['GET /activities/{activityUuid}/dates/{day}']?.parameters?.find((p) => p.name === 'day')?.example;
  t.equal(dayParam, exampleDay(app.clock.now()), 'the dates example is the same day');
  // The customer schema first, as the README's /docs path says (GET operations have no body example).
  t.equal((await app.inject({ url: `${base}/carts/${cart.uuid}/customer/schema`, headers: { ...headers, ...auth } })).statusCode, 200);
  const customer = await send('PUT', 'PUT /carts/{cartUuid}/customer', `/carts/${cart.uuid}/customer`, body('PUT /carts/{cartUuid}/customer'), auth);
  t.equal(customer.email, 'ada@example.com');
  const orderBody = body('POST /orders');
  t.match(JSON.stringify(orderBody), CART_PLACEHOLDER, 'the order example names where the cart uuid goes');
  const order = await send('POST', 'POST /orders', '/orders', fill(orderBody, { [CART_PLACEHOLDER]: cart.uuid }), auth);
  t.type(order.uuid, 'string');
  const paid = await send('POST', 'POST /payments/no/payment', '/payments/no/payment', fill(body('POST /payments/no/payment'), { [ORDER_PLACEHOLDER]: order.uuid }), auth);
  t.match(paid, { uuid: order.uuid });
  t.ok(paid.items?.length > 0 && paid.items.every((x: { status: string }) => x.status === 'OK'), 'the example activity confirms at once');
  const report = app.integrationReport!.get(app_);
  t.same(report.findings.filter((f) => f.severity !== 'info').map((f) => f.id), [], 'the examples make a booking the integration report finds nothing to say about');
});

t.test('the examples follow the server clock: after it moves, /docs/json shows a day a week after the new time', async (t) => {
  const { app } = await appAndDoc();
  const dayOf = async () => {
    const doc = (await app.inject({ url: '/docs/json' })).json() as { paths: Record<string, Record<string, { parameters?: Array<{ name: string; example?: string }>; requestBody?: { content: Record<string, { example: Array<{ product_identifier: string }> }> } }>> };
    return {
      day: doc.paths['/activities/{activityUuid}/dates/{day}']?.get?.parameters?.find((p) => p.name === 'day')?.example,
      product: doc.paths['/carts/{cartUuid}/items']?.post?.requestBody?.content['application/json']?.example[0]?.product_identifier,
    };
  };
  const before = await dayOf();
  t.equal(before.day, '2026-01-22');
  app.clock.advance(30 * 86_400_000);
  const after = await dayOf();
  t.equal(after.day, '2026-02-21');
  t.not(after.product, before.product, 'a product on the new day');
});
