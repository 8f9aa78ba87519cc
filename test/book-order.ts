// One booking the way a partner's client makes it, step by step, over HTTP or through inject().
import type { FastifyInstance } from 'fastify';

export const CONFIRM = '0f5821c5-2046-11e7-9cc9-06a7e332783f';
const LEAD = { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', musement_newsletter: 'NO', allow_profiling: 'NO', thirdparty_newsletter: 'NO', events_related_newsletter: 'NO' };

/** A partner API call: sends the application header (and the bearer token once a login answered), answers the JSON body, throws on a status outside 2xx. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the answers are the API's JSON, read as each test needs
export type PartnerCall = (method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) => Promise<any>;

type Send = (method: 'GET' | 'POST' | 'PUT', path: string, headers: Record<string, string>, body: string | undefined) => Promise<{ status: number; text: string }>;

function partner(application: string, send: Send): PartnerCall {
  // The version pinned, as a careful client does (the integration report warns without it).
  const headers: Record<string, string> = { 'x-service-application': application, 'x-service-version': '3.5.0', 'content-type': 'application/json' };
  return async (method, path, body) => {
    const { status, text } = await send(method, path, headers, body === undefined ? undefined : JSON.stringify(body));
    if (status < 200 || status > 299) throw new Error(`${method} ${path}: ${status} ${text}`);
    const json = text ? JSON.parse(text) : undefined;
    if (path === '/login') headers.authorization = `Bearer ${json.access_token}`;
    return json;
  };
}

/** Partner calls over HTTP to the API at `apiUrl` (…/api/v3). */
export function overHttp(apiUrl: string, application: string): PartnerCall {
  return partner(application, async (method, path, headers, body) => {
    const res = await fetch(`${apiUrl}${path}`, { method, headers, body });
    return { status: res.status, text: await res.text() };
  });
}

/** Partner calls through the app's inject(), to /api/v3. */
export function overInject(app: FastifyInstance, application: string): PartnerCall {
  return partner(application, async (method, path, headers, body) => {
    const res = await app.inject({ method, url: `/api/v3${path}`, headers, ...(body === undefined ? {} : { payload: body }) });
    return { status: res.statusCode, text: res.body };
  });
}

/** Partner calls through several apps' inject() in turn (instances sharing one store): call n goes to app n mod count. */
export function overInjectInTurn(apps: FastifyInstance[], application: string): PartnerCall {
  let n = 0;
  return partner(application, async (method, path, headers, body) => {
    const app = apps[n++ % apps.length] as FastifyInstance;
    const res = await app.inject({ method, url: `/api/v3${path}`, headers, ...(body === undefined ? {} : { payload: body }) });
    return { status: res.statusCode, text: res.body };
  });
}

/**
 * Logs in (the token then goes with every later call; the sandbox client unless `client` says), and books and pays one ticket of `activity`
 * on 2026-01-20 as a careful client does (the customer schema read before the customer, the order
 * read after the payment for its items' statuses): answers the order, whose one item is PENDING.
 */
export async function bookOrder(
  call: PartnerCall,
  activity = CONFIRM,
  client = { client_id: 'sandbox-client', client_secret: 'sandbox-secret' },
): Promise<{ uuid: string; identifier: string; items: Array<{ uuid: string; code: string }> }> {
  await call('POST', '/login', { ...client, grant_type: 'client_credentials' });
  const [s] = await call('GET', `/activities/${activity}/dates/2026-01-20`);
  const cart = await call('POST', '/carts');
  await call('POST', `/carts/${cart.uuid}/items`, [{ product_identifier: s.groups[0].slots[0].products[0].product_id, quantity: 1, language: 'en' }]);
  await call('GET', `/carts/${cart.uuid}/customer/schema`);
  await call('PUT', `/carts/${cart.uuid}/customer`, LEAD);
  const order = await call('POST', '/orders', { cart_uuid: cart.uuid });
  await call('POST', '/payments/no/payment', { uuid: order.uuid });
  await call('GET', `/orders/${order.uuid}`);
  return order;
}

/** Books one paid order for `application` through the partner API at `apiUrl`; its one item is PENDING. */
export const bookOverHttp = (apiUrl: string, application: string) => bookOrder(overHttp(apiUrl, application));
