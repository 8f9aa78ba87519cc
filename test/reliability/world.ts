import type { FastifyInstance, InjectOptions } from 'fastify';
import type { Pools } from './arbitraries.js';
import { BASE } from './operations.js';

export const VICTIM = 'victim';
export const ATTACKER = 'attacker';

/** Seeded activities of the seed-1 test catalog (see test/booking/flow.test.ts). */
export const INSTANT = '4e451a8a-2ee5-493f-aa12-a39f13d7253e';
export const PARTICIPANTS = '0420c908-981e-4e27-a40f-767e8b66574a';
export const DAY = '2026-01-20';
export const LEAD = { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', musement_newsletter: 'NO', allow_profiling: 'NO', thirdparty_newsletter: 'NO', events_related_newsletter: 'NO' };
const PERSON = { firstname: 'Ada', lastname: 'Lovelace', date_of_birth: '1815-12-10' };

interface Tenant {
  token: string;
  /** A cart with one item, not ordered. */
  openCart: string;
  openItem: string;
  /** An item of the open cart that needs participants. */
  participantsItem: string;
  /** A cart connected to an order. */
  orderedCart: string;
  order: string;
  orderItems: string[];
}

/** The two applications and what they own, the real ids to fuzz with, and the victim's snapshot. */
export interface World {
  victim: Tenant;
  attacker: Tenant;
  pools: Pools;
  /** Realistic bodies by operation template ("PUT /api/v3/carts/{cartUuid}/customer"). */
  examples: Record<string, unknown[]>;
  /** What the victim's cart and order looked like before the run. */
  snapshot: { cart: string; order: string };
}

/** A client for one application that fails loudly on an unexpected status. */
export function client(app: FastifyInstance, application: string) {
  const headers: Record<string, string> = { 'x-service-application': application };
  const call = async (method: InjectOptions['method'], url: string, payload?: unknown, status = 200) => {
    const res = await app.inject({ method, url: `${BASE}${url}`, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
    if (res.statusCode !== status) throw new Error(`setup: ${application} ${method} ${url}: expected ${status}, got ${res.statusCode} ${res.body.slice(0, 300)}`);
    return res.body ? res.json() : undefined;
  };
  return { headers, call };
}

async function product(call: ReturnType<typeof client>['call'], activity: string): Promise<string> {
  const [schedule] = await call('GET', `/activities/${activity}/dates/${DAY}`);
  return schedule.groups[0].slots[0].products.find((p: { holder_code: string }) => p.holder_code === 'adult').product_id as string;
}

/** Logs in, fills a cart, orders and pays another: every kind of record an id can point at. */
async function tenant(app: FastifyInstance, application: string): Promise<Tenant> {
  const c = client(app, application);
  const token = (await c.call('POST', '/login', { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' })).access_token as string;
  c.headers.authorization = `Bearer ${token}`;
  const instant = await product(c.call, INSTANT);

  const open = await c.call('POST', '/carts');
  const openItem = await c.call('POST', `/carts/${open.uuid}/items`, [{ product_identifier: instant, quantity: 1 }]);
  const participantsItem = await c.call('POST', `/carts/${open.uuid}/items`, [{ product_identifier: await product(c.call, PARTICIPANTS), quantity: 2 }]);

  const ordered = await c.call('POST', '/carts');
  await c.call('POST', `/carts/${ordered.uuid}/items`, [{ product_identifier: instant, quantity: 2 }]);
  await c.call('PUT', `/carts/${ordered.uuid}/customer`, LEAD);
  const order = await c.call('POST', '/orders', { cart_uuid: ordered.uuid, email_notification: 'NONE' });
  await c.call('POST', '/payments/no/payment', { uuid: order.uuid });
  return {
    token,
    openCart: open.uuid,
    openItem: openItem.uuid,
    participantsItem: participantsItem.uuid,
    orderedCart: ordered.uuid,
    order: order.uuid,
    orderItems: order.items.map((i: { uuid: string }) => i.uuid),
  };
}

/** ids (or uuids, codes) of the first few records of a list endpoint. */
async function idsOf(app: FastifyInstance, url: string, fields = ['uuid', 'id', 'code']): Promise<string[]> {
  const res = await app.inject({ method: 'GET', url: `${BASE}${url}`, headers: { 'x-service-application': ATTACKER } });
  if (res.statusCode !== 200) return [];
  const body = res.json() as unknown;
  const list = (Array.isArray(body) ? body : ((body as { data?: unknown[] }).data ?? [])) as Record<string, unknown>[];
  const ids: string[] = [];
  for (const item of list.slice(0, 4)) {
    const f = fields.find((k) => item[k] !== undefined && item[k] !== null);
    if (f) ids.push(String(item[f]));
  }
  return ids;
}

export async function victimSnapshot(app: FastifyInstance, victim: Tenant): Promise<{ cart: string; order: string }> {
  const headers = { 'x-service-application': VICTIM, authorization: `Bearer ${victim.token}` };
  const cart = await app.inject({ method: 'GET', url: `${BASE}/carts/${victim.openCart}`, headers });
  const order = await app.inject({ method: 'GET', url: `${BASE}/orders/${victim.order}`, headers });
  return { cart: `${cart.statusCode} ${cart.body}`, order: `${order.statusCode} ${order.body}` };
}

/**
 * What an id in a pool refers to: `@a.openCart` is the attacker's open cart, `@v.orderItems.0` the
 * victim's first order item. Resolved when a request is built, so that the attacker's records can be
 * made again after a request deletes them, and so that counterexamples read as what they meant.
 */
export function resolveRef(world: World, value: string): string {
  const m = /^@([av])\.(\w+)(?:\.(\d+))?$/.exec(value);
  if (!m) return value;
  const owner = m[1] === 'a' ? world.attacker : world.victim;
  const field = owner[m[2] as keyof Tenant];
  return String(Array.isArray(field) ? field[Number(m[3] ?? 0)] : field);
}

export async function setupWorld(app: FastifyInstance): Promise<World> {
  const victim = await tenant(app, VICTIM);
  const attacker = await tenant(app, ATTACKER);
  const activities = [INSTANT, PARTICIPANTS, ...(await idsOf(app, '/activities?limit=4'))];
  const destinations = await idsOf(app, `/activities/${INSTANT}/destinations`);
  const unknown = '00000000-0000-4000-8000-000000000000';
  // Both tenants' ids, the attacker's first: they reach the handlers; the victim's must stay out of reach.
  const carts = ['@a.openCart', '@a.orderedCart', '@v.openCart', '@v.orderedCart', unknown];
  const cartItems = ['@a.participantsItem', '@a.openItem', '@v.openItem', '@v.participantsItem', unknown];
  const orders = ['@a.order', '@v.order', unknown];
  const orderItems = ['@a.orderItems.0', '@v.orderItems.0', unknown];
  const scenarios = await app.inject({ method: 'GET', url: '/__admin/scenarios' });
  const pools: Pools = {
    activityUuid: activities,
    categoryId: await idsOf(app, '/categories'),
    cityId: await idsOf(app, '/cities'),
    countryId: await idsOf(app, '/countries'),
    venueId: await idsOf(app, '/venues'),
    listId: await idsOf(app, '/lists'),
    eventId: await idsOf(app, '/events'),
    verticalId: await idsOf(app, '/verticals'),
    destinationUuid: destinations.length ? destinations : [unknown],
    day: [DAY, '2026-01-21', '2025-12-31', '2026-02-30'],
    locale: ['en-US', 'it', 'fr-FR', 'xx'],
    cartUuid: carts,
    cart_uuid: carts,
    cartItemUuid: cartItems,
    orderUuid: orders,
    order_uuid: orders,
    uuid: [...orders, ...orderItems],
    orderItemUuid: orderItems,
    order_item_uuid: orderItems,
    itemUuid: orderItems,
    product_identifier: [await product(client(app, ATTACKER).call, INSTANT)],
    name: [...(scenarios.statusCode === 200 ? (scenarios.json().scenarios as { name: string }[]).map((x) => x.name).slice(0, 3) : []), 'nope'],
    application: [ATTACKER, 'someone-else'],
    client_id: ['sandbox-client'],
    client_secret: ['sandbox-secret'],
    grant_type: ['client_credentials'],
    id: ['1', 'd-1', unknown],
    path: ['/carts', '*', '/activities'],
    status: ['OK', 'PENDING', 'CANCELLED'],
  };
  const examples: Record<string, unknown[]> = {
    [`POST ${BASE}/login`]: [{ client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' }],
    [`PUT ${BASE}/carts/{cartUuid}/customer`]: [LEAD, { ...LEAD, email: 'not-an-email' }, { ...LEAD, extra_customer_data: { [INSTANT]: { phone_number: '+39 333 1234567' } } }],
    [`PUT ${BASE}/carts/{cartUuid}/items/{cartItemUuid}/participants`]: [[PERSON, { ...PERSON, firstname: 'Byron' }], [PERSON], [{ ...PERSON, date_of_birth: 'yesterday' }, PERSON]],
    [`POST ${BASE}/carts/{cartUuid}/items`]: [[{ product_identifier: pools.product_identifier![0], quantity: 1 }]],
    [`POST ${BASE}/orders`]: [{ cart_uuid: '@a.openCart', email_notification: 'NONE' }],
    [`POST ${BASE}/payments/no/payment`]: [{ uuid: '@a.order' }, { uuid: '@v.order' }],
  };
  return { victim, attacker, pools, examples, snapshot: await victimSnapshot(app, victim) };
}

/** Drops the attacker's records and makes them again: after a request deleted or ordered its cart. */
export async function renewAttacker(app: FastifyInstance, world: World): Promise<void> {
  const res = await app.inject({ method: 'POST', url: '/__admin/reset', payload: { application: ATTACKER } });
  if (res.statusCode !== 200) throw new Error(`setup: reset of ${ATTACKER} answered ${res.statusCode} ${res.body.slice(0, 200)}`);
  world.attacker = await tenant(app, ATTACKER);
}

/**
 * The isolation property: the victim can still write, and its cart and order read as before.
 * Returns what went wrong, or null.
 */
export async function isolationProblem(app: FastifyInstance, world: World): Promise<string | null> {
  const headers = { 'x-service-application': VICTIM, authorization: `Bearer ${world.victim.token}` };
  const write = await app.inject({ method: 'POST', url: `${BASE}/carts`, headers });
  if (write.statusCode !== 200) return `victim's POST /carts answered ${write.statusCode} ${write.body.slice(0, 300)}`;
  const now = await victimSnapshot(app, world.victim);
  if (now.cart !== world.snapshot.cart) return `victim's cart changed: ${now.cart.slice(0, 300)}`;
  if (now.order !== world.snapshot.order) return `victim's order changed: ${now.order.slice(0, 300)}`;
  const polluted = Object.getOwnPropertyNames(Object.prototype).filter((k) => !BUILTIN_PROTO_KEYS.has(k));
  if (polluted.length) return `Object.prototype was polluted with ${polluted.join(', ')}`;
  return null;
}

const BUILTIN_PROTO_KEYS = new Set(Object.getOwnPropertyNames(Object.prototype));
