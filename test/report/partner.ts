// A partner's client for the report's tests: a careful booking, step by step, that flawed clients
// change in one place each.
import type { FastifyInstance } from 'fastify';

export const DAY = '2026-01-20';
export const INSTANT = '4e451a8a-2ee5-493f-aa12-a39f13d7253e';
export const CONFIRM = '0f5821c5-2046-11e7-9cc9-06a7e332783f';
export const ECD = '1714c6a7-2046-11e7-9cc9-06a7e332783f';
export const PARTICIPANTS = '0420c908-981e-4e27-a40f-767e8b66574a';
export const PICKUP_ACTIVITY = 'df542cb8-8fca-44d0-94e6-715399c783f0';
export const PICKUP = 'c0000000-0000-4000-8000-000000000001';
export const REFUND = '0f641d85-2046-11e7-9cc9-06a7e332783f';
export const SANDBOX = { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' };
export const LEAD = { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', musement_newsletter: 'NO', allow_profiling: 'NO', thirdparty_newsletter: 'NO', events_related_newsletter: 'NO' };

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
/* eslint-disable @typescript-eslint/no-explicit-any -- answers are the API's JSON, read as each client needs */

/** What a careful booking does; a flawed client turns one of these off (or changes one call). */
export interface BookOptions {
  activity?: string;
  quantity?: number;
  readCustomerSchema?: boolean;
  readParticipantsSchema?: boolean;
  /** Extra fields for the item, the order body, the customer. */
  item?: Record<string, unknown>;
  order?: Record<string, unknown>;
  customer?: Record<string, unknown>;
  pay?: boolean;
  readOrder?: boolean;
}

export function partner(app: FastifyInstance, application: string, extra: Record<string, string | undefined> = {}, prefix = 'x-service-') {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries({ [`${prefix}application`]: application, [`${prefix}version`]: '3.5.0', ...extra })) if (v !== undefined) headers[k] = v;
  const call = async (method: Method, url: string, payload?: unknown, more: Record<string, string> = {}) => {
    const res = await app.inject({ method, url: `/api/v3${url}`, headers: { ...headers, ...more }, ...(payload === undefined ? {} : { payload: payload as object }) });
    return res;
  };
  const ok = async (method: Method, url: string, payload?: unknown): Promise<any> => {
    const res = await call(method, url, payload);
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.body ? res.json() : undefined;
  };
  const login = async (creds: Record<string, string> = SANDBOX) => {
    const token = (await ok('POST', '/login', creds)).access_token as string;
    headers.authorization = `Bearer ${token}`;
    return token;
  };
  const product = async (activity: string, query = '') => (await ok('GET', `/activities/${activity}/dates/${DAY}${query}`))[0].groups[0].slots[0].products[0].product_id as string;

  /** The order and its items, each step as a careful client does it unless `opts` says otherwise. */
  const book = async (opts: BookOptions = {}): Promise<any> => {
    const activity = opts.activity ?? INSTANT;
    const info = await ok('GET', `/activities/${activity}`);
    const pickup = info.order_box_elements?.includes('tours-and-activities-with-pickup') ? PICKUP : undefined;
    const query = pickup ? `?pickup=${pickup}` : '';
    const [schedule] = await ok('GET', `/activities/${activity}/dates/${DAY}${query}`);
    const slot = schedule.groups[0].slots[0];
    const cart = await ok('POST', '/carts');
    const language = slot.languages?.[0]?.code;
    const item = await ok('POST', `/carts/${cart.uuid}/items`, [{ type: 'musement', product_identifier: slot.products[0].product_id, quantity: opts.quantity ?? 1, ...(language ? { language } : {}), ...(pickup ? { pickup } : {}), ...opts.item }]);
    if (opts.readCustomerSchema !== false) await ok('GET', `/carts/${cart.uuid}/customer/schema`);
    const ecd = info.has_extra_customer_data ? { extra_customer_data: { [activity]: { phone_number: '1234567890' } } } : {};
    await ok('PUT', `/carts/${cart.uuid}/customer`, { ...LEAD, ...ecd, ...opts.customer });
    if (opts.readParticipantsSchema !== false) await call('GET', `/carts/${cart.uuid}/items/${item.uuid}/participants/schema`);
    if (info.has_passenger_info) {
      const people = Array.from({ length: opts.quantity ?? 1 }, (_, i) => ({ firstname: `P${i}`, lastname: 'Doe', date_of_birth: '1990-01-01' }));
      await ok('PUT', `/carts/${cart.uuid}/items/${item.uuid}/participants`, people);
    }
    const order = await ok('POST', '/orders', { cart_uuid: cart.uuid, email_notification: 'NONE', ...opts.order });
    if (opts.pay === false) return { ...order, cart: cart.uuid };
    const paid = await ok('POST', '/payments/no/payment', { uuid: order.uuid });
    if (opts.readOrder !== false) await ok('GET', `/orders/${order.uuid}`);
    return { ...paid, cart: cart.uuid };
  };
  return { headers, call, ok, login, product, book };
}
