/**
 * Conformance to the vendor's own OpenAPI document: a client generated from it must not choke on
 * what the mock sends. Every path of the document is requested with real ids (seeded catalog, and
 * a booking made here), in interface versions 3.4.0 and 3.5.0, and each JSON body is validated
 * against the document's schema for its status. A violation fails the test unless DEVIATIONS lists
 * it, with the reason the mock differs on purpose.
 */
import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from '../helper.js';
import { loadReference, type RefOperation } from './reference.js';

const API = '/api/v3';
const INSTANT = '4e451a8a-2ee5-493f-aa12-a39f13d7253e';
const CONFIRM = '0f5821c5-2046-11e7-9cc9-06a7e332783f';
const ECD = '1714c6a7-2046-11e7-9cc9-06a7e332783f';
const PARTICIPANTS = '0420c908-981e-4e27-a40f-767e8b66574a';
const PICKUP = 'df542cb8-8fca-44d0-94e6-715399c783f0';
const REFUND_TIERS = '0f641d85-2046-11e7-9cc9-06a7e332783f';
const DAY = '2026-01-20';
const LEAD = { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', musement_newsletter: 'NO', allow_profiling: 'NO', thirdparty_newsletter: 'NO', events_related_newsletter: 'NO' };

/**
 * Differences on purpose, each with its reason: `op` is "METHOD /path" of the document, `at` the
 * JSON pointer of the field (a regular expression), `keyword` ajv's.
 */
export const DEVIATIONS: Array<{ op: RegExp; at: RegExp; keyword?: string; why: string }> = [
  { op: /./, at: /(^|\/)level$/, keyword: 'type', why: 'spec, Category: "level string" (the document: integer)' },
  { op: /^GET \/activities\/\{activityUuid\}\/metadata\/languages$/, at: /^$/, keyword: 'type', why: 'spec: "object with languages: array of unique two-character language codes" (the document: an array)' },
  { op: /^GET \/activities\/\{activityUuid\}\/extra-customer-data\/schema$/, at: /^\/properties$/, keyword: 'type', why: 'spec: a JSON Schema object, whose properties is an object keyed by field (the document: an array)' },
  { op: /\/carts\/\{cartUuid\}$|\/voucher\/booking$/, at: /(^|\/)product\/date$/, keyword: 'format', why: 'api-facts, Timestamps: the vendor\'s guides show product date like "2018-09-01 15:30" (the document: date-time)' },
  { op: /^PUT \/carts\/\{cartUuid\}\/customer$/, at: /^\/extra_customer_data$/, keyword: 'type', why: 'api-facts, Customer response: extra_customer_data is an object keyed by activity uuid, as the guides show (the document: an array)' },
];

/** Query strings some reads need to answer 200. */
const QUERY: Record<string, string> = {
  '/autocomplete': '?text=rome',
  '/activities/{activityUuid}/dates': `?date_from=${DAY}&date_to=2026-01-25`,
};

/** Paths whose ids differ from the rest: catalog updates are asked for a day that has passed. */
const PATHS: Record<string, string> = { '/catalog/updates/{day}': '/catalog/updates/2026-01-14' };

/** Reads with no 2xx for any booking the sandbox can make, each with why. */
const UNREACHABLE = new Map<string, string>([
  ['GET /orders/{orderUuid}/items/{orderItemUuid}/vouchers-external', 'the fixtures have no activity sold through an external supplier: every item answers 404'],
]);

interface Violation {
  op: string;
  version: string;
  url: string;
  status: number;
  at: string;
  keyword: string;
  message: string;
}

function client(app: FastifyInstance, version: string) {
  const headers: Record<string, string> = { 'x-service-application': 'conformance', 'x-service-version': version };
  return async (method: string, url: string, payload?: unknown) => {
    const res = await app.inject({ method: method as 'GET', url: `${API}${url}`, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
    if (url === '/login' && res.statusCode === 200) headers.authorization = `Bearer ${res.json().access_token}`;
    return res;
  };
}

/** Ids for every path parameter of the document, from the catalog and from a booking made through the API. */
async function discover(call: ReturnType<typeof client>) {
  const json = async (url: string, method = 'GET', body?: unknown) => {
    const res = await call(method, url, body);
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    return res.body ? res.json() : undefined;
  };
  const first = async (url: string) => {
    const list = await json(url);
    return (Array.isArray(list) ? list : (list.data ?? list.items ?? Object.values(list)[0]))[0];
  };
  const login = await json('/login', 'POST', { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' });
  const product = async (activity: string, query = '') => (await json(`/activities/${activity}/dates/${DAY}${query}`))[0].groups[0].slots[0].products[0].product_id as string;
  const cart = await json('/carts', 'POST');
  const add = (body: unknown) => json(`/carts/${cart.uuid}/items`, 'POST', body);
  await add([{ product_identifier: await product(INSTANT), quantity: 1 }]);
  await add([{ product_identifier: await product(REFUND_TIERS), quantity: 1 }]);
  await add([{ product_identifier: await product(CONFIRM), quantity: 1, language: 'en' }]);
  await add([{ product_identifier: await product(ECD), quantity: 1 }]);
  const withParticipants = await add([{ product_identifier: await product(PARTICIPANTS), quantity: 1 }]);
  await add([{ product_identifier: await product(PICKUP, '?pickup=c0000000-0000-4000-8000-000000000001'), quantity: 1, language: 'en', pickup: 'c0000000-0000-4000-8000-000000000002' }]);
  await json(`/carts/${cart.uuid}/customer`, 'PUT', { ...LEAD, extra_customer_data: { [ECD]: { phone_number: '+39 333 1234567' } } });
  await json(`/carts/${cart.uuid}/items/${withParticipants.uuid}/participants`, 'PUT', [{ firstname: 'Ada', lastname: 'Lovelace', date_of_birth: '1815-12-10' }]);
  // An open cart too, for the cart paths (the first one is locked once ordered).
  const open = await json('/carts', 'POST');
  const openItem = await json(`/carts/${open.uuid}/items`, 'POST', [{ product_identifier: await product(PARTICIPANTS), quantity: 1 }]);
  const order = await json('/orders', 'POST', { cart_uuid: cart.uuid, email_notification: 'NONE', affiliate: 'partner-shop', affiliate_channel: 'newsletter' });
  await json('/payments/no/payment', 'POST', { uuid: order.uuid });
  const paid = await json(`/orders/${order.uuid}`);
  const pickups = await json(`/activities/${PICKUP}/pickups`);
  const instantCity = (await json(`/activities/${INSTANT}`)).city.id as number;
  const cities = (await json('/cities?limit=100')) as Array<{ id: number }>;
  return {
    token: login.access_token as string,
    // Every activity of the catalog: fixtures for each edge case, generated ones with media.
    activityUuid: (await json('/activities?limit=100')).data.map((a: { uuid: string }) => a.uuid) as string[],
    localeCode: 'en-GB',
    day: DAY,
    // A city that is not the first activity's own, so that it can be added and removed again.
    destinationUuid: String(cities.find((c) => c.id !== instantCity)?.id ?? 'none'),
    instantProduct: await product(INSTANT),
    categoryId: String((await first('/categories')).id),
    cityId: String((await first('/cities')).id),
    countryId: String((await first('/countries')).id),
    listId: String((await first('/lists')).id),
    venueId: String((await first('/venues')).id),
    verticalId: String((await first('/verticals')).id),
    activityPickupUuid: pickups[0]?.uuid ?? 'none',
    cartUuid: open.uuid as string,
    cartItemUuid: openItem.uuid as string,
    orderUuid: order.uuid as string,
    orderItemUuid: paid.items.map((i: { uuid: string }) => i.uuid) as string[],
  };
}

t.test('every body the mock sends on the paths of the reference document is valid under its schema', async (t) => {
  const { ops, check } = loadReference();
  const violations: Violation[] = [];
  const notServed = new Set<string>();
  const unreached: string[] = [];
  for (const version of ['3.4.0', '3.5.0']) {
    const app = await buildTestApp();
    const call = client(app, version);
    const ids = (await discover(call)) as Record<string, string | string[]>;
    // Reads first, then the writes in the order of a booking (on the ids found above).
    const rank = (op: RefOperation) => (op.method === 'GET' ? -1 : WRITES.indexOf(`${op.method} ${op.path}`));
    const unknown = ops.filter((op) => rank(op) === -1 && op.method !== 'GET').map((op) => `${op.method} ${op.path}`);
    t.same(unknown, [], 'every write of the document has its place in WRITES');
    for (const op of [...ops].sort((a, b) => rank(a) - rank(b))) {
      const key = `${op.method} ${op.path}`;
      // A parameter with several ids (activities of each fixture kind, each order item) is tried with each.
      const many = op.pathParams.find((p) => Array.isArray(ids[p]));
      const urls = (many ? (ids[many] as string[]) : [null]).map(
        (one) => (PATHS[op.path] ?? op.path).replace(/\{([^}]+)\}/g, (_, name: string) => (name === many ? (one as string) : (ids[name] as string) ?? name)) + (QUERY[op.path] ?? ''),
      );
      const statuses: number[] = [];
      for (const url of urls) {
        const res = await call(op.method, url, bodyFor(op, ids));
        if (res.statusCode === 404 && /^No route for/.test(res.json().message ?? '')) {
          notServed.add(key);
          break;
        }
        statuses.push(res.statusCode);
        if (key === 'POST /orders' && res.statusCode === 200) ids.newOrder = res.json().uuid;
        if (!/json/.test(String(res.headers['content-type'])) || !res.body) continue;
        for (const e of check(op, res.statusCode, res.json())) {
          // Array positions as *: the same field of every item is one violation.
          const at = e.instancePath.replace(/\/\d+(?=\/|$)/g, '/*');
          const v = { op: key, version, url, status: res.statusCode, at, keyword: e.keyword, message: e.message ?? '' };
          if (!DEVIATIONS.some((d) => d.op.test(key) && d.at.test(v.at) && (!d.keyword || d.keyword === v.keyword))) violations.push(v);
        }
      }
      if (statuses.length && !statuses.some((x) => x < 300) && !UNREACHABLE.has(key)) unreached.push(`${key} ${version}: ${statuses.join(', ')}`);
    }
    await app.close();
  }
  t.same([...notServed], [], 'every operation of the document is served');
  t.same(unreached, [], 'every operation answered 2xx with the ids found, so its body was checked');
  const byOp = new Map<string, string[]>();
  for (const v of violations) {
    const list = byOp.get(v.op) ?? [];
    const line = `${v.status} ${v.at || '/'} ${v.keyword}: ${v.message}`;
    if (!list.includes(line)) list.push(line);
    byOp.set(v.op, list);
  }
  t.same(Object.fromEntries(byOp), {}, `${violations.length} violations of the reference schemas`);
});

/** The document's writes, in the order a booking makes them: each works on what the one before left. */
const WRITES = [
  'POST /login',
  'POST /refresh',
  'PUT /activities/{activityUuid}/destinations/{destinationUuid}',
  'DELETE /activities/{activityUuid}/destinations/{destinationUuid}',
  'POST /carts',
  'PUT /carts/{cartUuid}',
  'PATCH /carts/{cartUuid}',
  'POST /carts/{cartUuid}/items',
  'PUT /carts/{cartUuid}/items/{cartItemUuid}/participants',
  'PUT /carts/{cartUuid}/customer',
  'DELETE /carts/{cartUuid}/items/{cartItemUuid}',
  'POST /orders',
  'POST /payments/no/payment',
  'DELETE /orders/{orderUuid}/items/{orderItemUuid}',
];

/** The body of each write, on the discovered ids. */
function bodyFor(op: RefOperation, ids: Record<string, string | string[]>): unknown {
  switch (`${op.method} ${op.path}`) {
    case 'POST /login':
      return { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' };
    case 'POST /refresh':
      return { grant_type: 'refresh_token', refresh_token: ids.token };
    case 'POST /carts/{cartUuid}/items':
      return [{ type: 'musement', product_identifier: ids.instantProduct, quantity: 1 }];
    case 'PUT /carts/{cartUuid}/customer':
      return LEAD;
    case 'PUT /carts/{cartUuid}/items/{cartItemUuid}/participants':
      return [{ firstname: 'Ada', lastname: 'Lovelace', date_of_birth: '1815-12-10' }];
    case 'POST /orders':
      return { cart_uuid: ids.cartUuid, email_notification: 'NONE' };
    case 'POST /payments/no/payment':
      return { uuid: ids.newOrder };
    case 'DELETE /orders/{orderUuid}/items/{orderItemUuid}':
      return { cancellation_reason: 'CANCELLED-BY-CUSTOMER' };
    default:
      return op.method === 'GET' || op.method === 'DELETE' ? undefined : {};
  }
}
