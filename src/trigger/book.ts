import type { SandboxSession } from '../sandbox-session.js';
import { SessionError } from '../sandbox-session.js';

export interface Booked {
  order: { uuid: string; identifier: string };
  item: { uuid: string; code: string; status: string };
  activity: { uuid: string; title: string };
  day: string;
  quantity: number;
  email: string;
}

/** What a lead booker's form gets for each field the customer schema may require. */
const CUSTOMER: Record<string, string> = {
  firstname: 'Ada', lastname: 'Lovelace', musement_newsletter: 'NO', allow_profiling: 'NO', thirdparty_newsletter: 'NO', events_related_newsletter: 'NO',
  phone: '+390212345678', phone_number: '+390212345678', address: 'Via Roma 1', city: 'Milano', zipcode: '20121',
};

/**
 * Books and pays one product of `activity` through the partner API, as a careful client does (the
 * dates, the customer schema, the order read after paying), so that the journal and the integration
 * report see a normal booking. The day is the first open one after today on the application's time.
 */
export async function book(session: SandboxSession, activity: string, quantity: number, email: string): Promise<Booked> {
  const details = await session.partner<{ title?: string; languages?: Array<{ code: string }> }>('GET', `/activities/${encodeURIComponent(activity)}`);
  // A guided activity takes a guide language: English when it has it.
  const codes = (details.languages ?? []).map((l) => l.code);
  const language = codes.includes('en') ? 'en' : codes[0];
  const dates = await session.partner<Array<{ day: string; sold_out?: boolean }>>('GET', `/activities/${encodeURIComponent(activity)}/dates`);
  let product: string | null = null;
  let day = '';
  for (const d of dates.filter((x) => !x.sold_out).slice(1, 8)) {
    const slots = await session.partner<Array<{ groups?: Array<{ slots?: Array<{ products?: Array<{ product_id: string }> }> }> }>>('GET', `/activities/${encodeURIComponent(activity)}/dates/${d.day}`);
    product = slots[0]?.groups?.[0]?.slots?.[0]?.products?.[0]?.product_id ?? null;
    day = d.day;
    if (product) break;
  }
  if (!product) throw new SessionError(`activity ${activity} has no product to book in the days ahead: choose another with --override activity=UUID`);
  const cart = await session.partner<{ uuid: string }>('POST', '/carts');
  await session.partner('POST', `/carts/${cart.uuid}/items`, [{ type: 'musement', product_identifier: product, quantity, ...(language ? { language } : {}) }]);
  const schema = await session.partner<{ required?: string[] }>('GET', `/carts/${cart.uuid}/customer/schema`);
  const customer: Record<string, string> = { email };
  for (const field of schema.required ?? []) {
    if (field === 'email') continue;
    const value = CUSTOMER[field];
    if (value === undefined) throw new SessionError(`activity ${activity} asks for the customer field "${field}", which trigger does not fill: book it with your client and pass --item UUID`);
    customer[field] = value;
  }
  await session.partner('PUT', `/carts/${cart.uuid}/customer`, customer);
  const order = await session.partner<{ uuid: string; identifier: string }>('POST', '/orders', { cart_uuid: cart.uuid, email_notification: 'NONE' });
  await session.partner('POST', '/payments/no/payment', { uuid: order.uuid });
  const paid = await session.partner<{ identifier: string; items: Array<{ uuid: string; code: string; status: string }> }>('GET', `/orders/${order.uuid}`);
  const item = paid.items[0];
  if (!item) throw new SessionError(`order ${order.uuid} has no item`);
  return { order: { uuid: order.uuid, identifier: paid.identifier }, item, activity: { uuid: activity, title: details.title ?? activity }, day, quantity, email };
}
