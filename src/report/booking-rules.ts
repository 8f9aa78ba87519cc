import type { FastifyInstance, FastifyRequest } from 'fastify';
import { customerSchema } from '../booking/customer.routes.js';
import type { Cart, Order } from '../booking/records.js';
import { decodeProductId } from '../catalog/schedule.js';
import { compareVersions } from '../http/service-headers.js';
import type { AppBook } from './book.js';
import { describeUnknown, unknownKeys } from './fields.js';
import type { FindingId } from './findings.js';

type Params = Record<string, string | undefined>;
type Note = (id: FindingId, detail?: string, extra?: { group?: string }) => void;

/** Fields the vendor's customer request takes beyond the cart's schema (the mock keeps them as sent). */
const CUSTOMER_EXTRA = ['mobile', 'birthdate', 'gender'];

const objects = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v : [v]).filter((o): o is Record<string, unknown> => o !== null && typeof o === 'object' && !Array.isArray(o));

/** The operations bookingRules() looks at. */
export const BOOKING_OPS = new Set([
  'GET /carts/:cartUuid/customer/schema', 'GET /carts/:cartUuid/form', 'PUT /carts/:cartUuid/customer', 'PUT /carts/:cartUuid/items/:cartItemUuid/participants',
  'POST /carts', 'POST /carts/:cartUuid/items', 'POST /orders', 'POST /payments/no/payment', 'DELETE /orders/:orderUuid/items/:orderItemUuid',
]);

/**
 * What a 2xx answer to a booking operation tells about the client: the reads it did before a write
 * (schemas, refund policies), what the mock accepted but dropped (a language or pickup the activity
 * does not have, fields the cart's schemas do not list, a source the version no longer reads), and
 * paid orders whose items' statuses the client has yet to read.
 */
export function bookingRules(app: FastifyInstance, request: FastifyRequest, op: string, book: AppBook, note: Note): void {
  const params = (request.params ?? {}) as Params;
  const application = request.service.application;
  const cartOf = () => app.store.tenant(application).carts[params.cartUuid ?? ''] as unknown as Cart | undefined;
  const example = () => ({ method: request.method, url: request.url, reqId: String(request.id), at: app.clock.now().getTime() });
  switch (op) {
    case 'GET /carts/:cartUuid/customer/schema':
      book.remember(book.customerSchemaRead, params.cartUuid ?? '');
      break;
    case 'GET /carts/:cartUuid/form':
      // The legacy form holds the customer's and every item's questions.
      book.remember(book.customerSchemaRead, params.cartUuid ?? '');
      book.remember(book.participantsSchemaRead, `cart ${params.cartUuid ?? ''}`);
      break;
    case 'PUT /carts/:cartUuid/customer': {
      if (!book.customerSchemaRead.has(params.cartUuid ?? '')) note('customer-without-schema');
      const cart = cartOf();
      if (!cart) break;
      const known = new Set([...Object.keys(customerSchema(app, cart, 'en').properties), ...CUSTOMER_EXTRA]);
      const extra = unknownKeys(request.body, known);
      if (extra.length) note('unknown-body-field', `${describeUnknown(extra, known)} on PUT /carts/{cartUuid}/customer`);
      break;
    }
    case 'PUT /carts/:cartUuid/items/:cartItemUuid/participants': {
      if (!book.participantsSchemaRead.has(params.cartItemUuid ?? '') && !book.participantsSchemaRead.has(`cart ${params.cartUuid ?? ''}`)) note('participants-without-schema');
      const item = cartOf()?.items.find((x) => x.uuid === params.cartItemUuid);
      const activity = item && app.catalog.activityByUuid.get(item.activity_uuid);
      if (!activity) break;
      const known = new Set(activity.booking.participant_fields.map((f) => f.name));
      const body = request.body as { participants?: unknown } | unknown[];
      const extra = unknownKeys(Array.isArray(body) ? body : body?.participants, known);
      if (extra.length) note('unknown-body-field', `${describeUnknown(extra, known)} on PUT /carts/{cartUuid}/items/{cartItemUuid}/participants`);
      break;
    }
    case 'POST /carts': {
      const fields = objects(request.body).flatMap((o) => Object.keys(o));
      if (fields.length) note('unknown-body-field', `${fields.slice(0, 5).join(', ')} on POST /carts (it takes no field: set the customer with PUT /carts/{cartUuid}/customer)`);
      break;
    }
    case 'POST /carts/:cartUuid/items':
      // Behind mock-server proxy the activities are the upstream's, not this catalog's.
      if (app.config.upstream) break;
      for (const input of objects(request.body)) {
        const ref = typeof input.product_identifier === 'string' ? decodeProductId(input.product_identifier) : null;
        const activity = ref && app.catalog.activityByUuid.get(ref.activityUuid);
        if (!activity) continue;
        if (input.language !== undefined && input.language !== null && activity.booking.languages.length === 0) note('language-ignored', `"${String(input.language).slice(0, 10)}" for activity ${activity.uuid}`, { group: op });
        if (input.pickup !== undefined && input.pickup !== null && activity.booking.pickups.length === 0) note('pickup-ignored', `activity ${activity.uuid}`, { group: op });
      }
      break;
    case 'POST /orders': {
      const body = objects(request.body)[0] ?? {};
      const cart = app.store.tenant(application).carts[String(body.cart_uuid)] as unknown as Cart | undefined;
      if (cart?.order_uuid) book.orderCreated(cart.order_uuid, example());
      if (body.source !== undefined || compareVersions(request.service.version, '3.5.0') < 0) break;
      let extra = body.extra_data;
      try {
        if (typeof extra === 'string') extra = JSON.parse(extra);
      } catch {
        break;
      }
      if (objects(extra)[0]?.source !== undefined) note('source-in-extra-data');
      break;
    }
    case 'POST /payments/no/payment': {
      const body = objects(request.body)[0] ?? {};
      const orders = app.store.tenant(application).orders as unknown as Record<string, Order>;
      const order = typeof body.uuid === 'string' ? orders[body.uuid] : Object.values(orders).find((o) => o.id === body.id);
      if (order) book.orderPaid(order.uuid);
      if (order?.items.some((x) => x.status !== 'OK')) book.paidPending(order.uuid, example());
      break;
    }
    case 'DELETE /orders/:orderUuid/items/:orderItemUuid':
      if (!book.refundPoliciesRead.has(params.orderItemUuid ?? '')) note('cancel-without-refund-policies');
      break;
  }
}
