/**
 * /docs/json describes every answer: each 2xx of each partner operation has a schema, a client
 * generated from the document (openapi-typescript, as a partner would run it) gets typed booking
 * answers, and documenting an answer never changes the bytes the partner receives.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import openapiTS, { astToString } from 'openapi-typescript';
import { buildApp } from '../../src/app.js';
import { defaults } from '../../src/config.js';
import { fixedClock } from '../../src/clock.js';
import { ORDER_ITEM_STATUSES } from '../../src/lifecycle/order-item-status.js';
import { packageRoot } from '../../src/paths.js';
import { buildTestApp, testCatalog } from '../helper.js';

type Schema = Record<string, unknown>;
type Operation = { responses?: Record<string, { content?: Record<string, { schema?: Schema }> }> };

/** A schema that says what the body is: not absent, not `{}` or a bare description, not a bare string (Swagger UI's "string"). */
function describes(schema: Schema | undefined, mediaType: string): boolean {
  if (!schema) return false;
  if (mediaType === 'application/json') {
    const shaped = ['type', 'properties', 'items', 'anyOf', 'oneOf', 'allOf', '$ref', 'enum'].some((k) => k in schema);
    return shaped && !(schema.type === 'string' && schema.format === undefined && schema.enum === undefined);
  }
  return schema.type === 'string' && schema.format === 'binary';
}

const docOf = async () => {
  const app = await buildTestApp();
  const doc = (await app.inject({ url: '/docs/json' })).json();
  await app.close();
  return doc;
};

t.test('every 2xx of every partner operation has its schema, JSON or binary', async (t) => {
  const doc = await docOf();
  const missing: string[] = [];
  let answers = 0;
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
    for (const [method, op] of Object.entries(item)) {
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        if (!/^2/.test(status) || status === '204') continue;
        answers++;
        const content = Object.entries(response.content ?? {});
        if (!content.length || !content.every(([type, c]) => describes(c.schema, type))) missing.push(`${method.toUpperCase()} ${path} ${status}`);
      }
    }
  }
  t.ok(answers > 80, `${answers} success answers documented`);
  t.same(missing, [], 'none left without a schema');
});

/** The generated client's types, checked by the TypeScript compiler against what a partner would write (a bundler's resolution, or Node's). */
function compile(dir: string, files: Record<string, string>, node = false): string[] {
  const names = Object.keys(files).map((f) => join(dir, f));
  const modules = node ? { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext } : { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler };
  const program = ts.createProgram(names, { strict: true, noEmit: true, skipLibCheck: true, target: ts.ScriptTarget.ES2022, ...modules, types: [] });
  return ts.getPreEmitDiagnostics(program).map((d) => `${d.file ? `${d.file.fileName.split('/').pop()}: ` : ''}${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
}

t.test('a client generated from /docs/json with openapi-typescript gets typed booking answers', async (t) => {
  const generated = astToString(await openapiTS(await docOf()));
  const lifecycle = ORDER_ITEM_STATUSES.map((s) => `'${s}'`).join(' | ');
  const uses = `
import type { paths } from './api.js';
type Json<P extends keyof paths, M extends keyof paths[P], S extends number> = paths[P][M] extends { responses: Record<S, { content: { 'application/json': infer B } }> } ? B : never;
type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

type Cart = Json<'/carts', 'post', 200>;
declare const cart: Cart;
export const cartUuid: string = cart.uuid;
export const total: number = cart.retail_price.value;
export const firstTitle: string | undefined = cart.items[0]?.product.title;
export const email: string | undefined = cart.customer?.email;

type Item = Json<'/carts/{cartUuid}/items', 'post', 200>;
export const prebook: Exact<Item['status'], 'PREBOOK_OK' | 'PREBOOK_KO'> = true;
export const quantity: number = ({} as Item).quantity;

export const customerEmail: string = ({} as Json<'/carts/{cartUuid}/customer', 'put', 200>).email;

type Order = Json<'/orders', 'post', 200>;
export const lifecycle: Exact<Order['items'][number]['status'], ${lifecycle}> = true;
export const identifier: string = ({} as Order).identifier;
export const paid: Exact<Json<'/payments/no/payment', 'post', 200>, Order> = true;
export const read: Exact<Json<'/orders/{orderUuid}', 'get', 200>, Order> = true;
export const refund: number = ({} as Json<'/orders/{orderUuid}/refunds', 'get', 200>)[0]!.amount.value;
export const tier: Exact<Json<'/orders/{orderUuid}/items/{orderItemUuid}/refund-policies', 'get', 200>[number]['type'], 'PERCENTAGE' | 'ABSOLUTE'> = true;
export const barcode: string = ({} as Json<'/orders/{orderUuid}/items/{orderItemUuid}/voucher/booking', 'get', 200>).barcodes[0]!.code;
export const pdf: Exact<paths['/orders/{orderUuid}/activities/{activityUuid}/voucher']['get']['responses'][200]['content']['application/pdf'], string> = true;
`;
  const dir = t.testdir({ 'api.ts': generated, 'uses.ts': uses, 'wrong.ts': `import type { paths } from './api.js';\nexport const s: paths['/orders/{orderUuid}']['get']['responses'][200]['content']['application/json']['items'][number]['status'] = 'SHIPPED';\n` });
  t.same(compile(dir, { 'api.ts': '', 'uses.ts': '' }), [], 'the booking answers have their fields, enums and shared shapes');
  t.match(compile(dir, { 'api.ts': '', 'wrong.ts': '' }).join('\n'), /'"SHIPPED"' is not assignable/, 'a status outside the lifecycle is refused: the types are not any');
});

t.test("docs/api-and-fidelity.md's openapi-typescript snippet compiles as written, in an ES module under NodeNext (and with a bundler)", async (t) => {
  const page = readFileSync(join(packageRoot, 'docs/api-and-fidelity.md'), 'utf8');
  const command = /npx -y openapi-typescript \S+ -o (\S+)/.exec(page);
  const snippet = /```ts\n(import type \{ paths \} from[\s\S]*?)```/.exec(page)?.[1];
  t.ok(command && snippet, 'the page has the command and the snippet');
  if (!command || !snippet) return;
  const lifecycle = ORDER_ITEM_STATUSES.map((s) => `'${s}'`).join(' | ');
  const dir = t.testdir({
    'package.json': '{"type": "module"}',
    [command[1] as string]: astToString(await openapiTS(await docOf())),
    'snippet.ts': `${snippet}type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;\nexport const statuses: Exact<ItemStatus, ${lifecycle}> = true;\n`,
  });
  t.same(compile(dir, { 'snippet.ts': '' }, true), [], 'NodeNext: the relative import names its .js file');
  t.same(compile(dir, { 'snippet.ts': '' }), [], 'a bundler');
  t.match(snippet, `// ${ORDER_ITEM_STATUSES.map((s) => `'${s}'`).join(' | ')}`, "the comment lists the lifecycle's statuses");
});

/**
 * The partner calls of a booking, then the catalog answers built by hand: each 2xx body is compared with the handler's object as
 * JSON.stringify writes it, and validated against the schema /docs/json gives it.
 */
t.test('documenting the answers changes no byte, and each answer of a booking (and of the catalog routes that build theirs) fits its documented schema', async (t) => {
  const app = await buildApp({ config: { ...defaults, seed: 1, catalogSize: 20, db: 'memory' }, clock: fixedClock(), catalog: await testCatalog() });
  let built: string | undefined;
  app.addHook('preSerialization', async (_request, _reply, payload) => {
    built = JSON.stringify(payload);
    return payload;
  });
  await app.ready();
  t.teardown(() => app.close());
  const headers: Record<string, string> = { 'x-service-application': 'bytes', 'accept-language': 'it-IT', 'x-service-currency': 'EUR' };
  const checked: string[] = [];
  const doc = (await app.inject({ url: '/docs/json' })).json();
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  // The document's shared schemas (#/components/...) are reached through its id.
  ajv.addSchema({ ...doc, $id: 'doc' });
  const schemaOf = (method: string, url: string, status: number) => {
    const path = Object.keys(doc.paths).find((p) => new RegExp(`^${p.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(url.split('?')[0] as string)) as string;
    const schema = doc.paths[path][method.toLowerCase()].responses[status].content['application/json'].schema;
    return ajv.compile(JSON.parse(JSON.stringify(schema).replace(/"\$ref":"#\//g, '"$ref":"doc#/')) as object);
  };
  const call = async (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown) => {
    built = undefined;
    const res = await app.inject({ method, url: `/api/v3${url}`, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
    t.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.statusCode < 300 ? '' : res.body}`);
    if (/json/.test(String(res.headers['content-type'])) && built !== undefined) {
      const name = `${method} ${url.replace(/[0-9a-f-]{36}/g, '{id}')}`;
      t.equal(res.body, built, `${name}: the bytes JSON.stringify writes`);
      const valid = schemaOf(method, url, res.statusCode);
      t.ok(valid(JSON.parse(res.body)), `${name}: fits its schema in /docs/json`, { errors: valid.errors });
      checked.push(`${method} ${url}`);
    }
    return res.body ? (JSON.parse(res.body) as Record<string, any>) : {}; // eslint-disable-line @typescript-eslint/no-explicit-any -- the API's JSON
  };
  const product = async (activity: string) => (await call('GET', `/activities/${activity}/dates/2026-01-20`))[0].groups[0].slots[0].products[0].product_id as string;
  const login = await call('POST', '/login', { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' });
  headers.authorization = `Bearer ${login.access_token}`;
  const cart = await call('POST', '/carts');
  // Refund tiers, one of them ABSOLUTE (its currency_code comes last but one); participants; extra customer data.
  const tiers = await call('POST', `/carts/${cart.uuid}/items`, [{ product_identifier: await product('0f641d85-2046-11e7-9cc9-06a7e332783f'), quantity: 2 }]);
  const withParticipants = await call('POST', `/carts/${cart.uuid}/items`, { product_identifier: await product('0420c908-981e-4e27-a40f-767e8b66574a'), quantity: 1 });
  const ecd = '1714c6a7-2046-11e7-9cc9-06a7e332783f';
  await call('POST', `/carts/${cart.uuid}/items`, [{ product_identifier: await product(ecd), quantity: 1 }]);
  await call('GET', `/carts/${cart.uuid}/customer/schema`);
  await call('GET', `/carts/${cart.uuid}/items/${withParticipants.uuid}/participants/schema`);
  await call('PUT', `/carts/${cart.uuid}/items/${withParticipants.uuid}/participants`, [{ date_of_birth: '1815-12-10', lastname: 'Lovelace', firstname: 'Ada' }]);
  await call('GET', `/carts/${cart.uuid}/items/${withParticipants.uuid}/participants`);
  // The lead booker's fields in another order than the schema's, and one the schema does not list: sent back as given.
  await call('PUT', `/carts/${cart.uuid}/customer`, {
    email: 'ada@example.com', lastname: 'Lovelace', firstname: 'Ada', events_related_newsletter: 'NO', thirdparty_newsletter: 'NO', allow_profiling: 'YES', musement_newsletter: 'NO',
    mobile: '+39 333 0000000', extra_customer_data: { [ecd]: { phone_number: '+39 333 1234567' } },
  });
  await call('GET', `/carts/${cart.uuid}`);
  await call('GET', `/carts/${cart.uuid}/form`);
  // Affiliate and channel given: optional fields that sit before email_notification in the answer.
  const order = await call('POST', '/orders', { cart_uuid: cart.uuid, email_notification: 'NONE', affiliate: 'partner-shop', affiliate_channel: 'newsletter', extra_data: { source: 'app' } });
  await call('GET', `/carts/${cart.uuid}/order-info`);
  await call('POST', '/payments/no/payment', { uuid: order.uuid });
  const paid = await call('GET', `/orders/${order.uuid}`);
  const item = (paid.items as Array<{ uuid: string; cart_item_uuid: string }>).find((x) => x.cart_item_uuid === tiers.uuid)!.uuid;
  await call('GET', `/orders/${order.uuid}/items/${item}/refund-policies`);
  await call('GET', `/orders/${order.uuid}/items/${item}/voucher/booking`);
  await call('DELETE', `/orders/${order.uuid}/items/${item}`, { cancellation_reason: 'CANCELLED-BY-CUSTOMER' });
  await call('GET', `/orders/${order.uuid}/refunds`);
  await call('GET', `/orders/${order.uuid}`);
  const open = await call('POST', '/carts');
  await call('PUT', `/carts/${open.uuid}`, {});
  await call('PATCH', `/carts/${open.uuid}`, {});
  await call('DELETE', `/carts/${open.uuid}`);
  // The catalog answers built by hand, documented the same way.
  const activity = '0f641d85-2046-11e7-9cc9-06a7e332783f';
  for (const url of [
    '/categories-tree', '/lists', '/list-types', '/cities/1/lists', '/pickups', '/autocomplete?text=rome', '/activities-related?text=rome', '/venues/1/comments',
    `/activities/${activity}/reviews`, `/activities/${activity}/comments`, `/activities/${activity}/contents/en`, `/activities/${activity}/safety-information`, '/catalog/updates/2026-01-14',
  ]) await call('GET', url);
  t.equal(checked.length, 37, 'every JSON answer built as an object was compared');
});
