import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { requireScope } from '../auth/index.js';
import { toPrice } from '../catalog/money.js';
import { clip, errors } from '../http/errors.js';
import { compareVersions } from '../http/service-headers.js';
import type { OrderRecord } from '../store/index.js';
import { cartOf, openCartIn } from './carts.routes.js';
import { orderOf } from './order-lookup.js';
import { passengerInfo } from './forms.js';
import { cartView, resolve } from './carts.js';
import { missingParticipants } from './customer.routes.js';
import { moveItem, sendAll } from './lifecycle.js';
import { OrderSchema } from './orders.schemas.js';
import type { Cart, Order, OrderItem } from './records.js';
import type { Started } from './scenario-runner.js';
import { voucherUrl } from './vouchers.routes.js';

const OrderBody = Type.Object(
  {
    cart_uuid: Type.String({ minLength: 1 }),
    email_notification: Type.Enum(['ALL', 'NONE', 'TO-CUSTOMER'], { default: 'ALL' }),
    extra_data: Type.Optional(Type.Union([Type.String(), Type.Object({}, { additionalProperties: true })], { description: 'serialized JSON object (an object is accepted too)' })),
    affiliate: Type.Optional(Type.String()),
    affiliate_channel: Type.Optional(Type.String()),
    source: Type.Optional(Type.String({ description: 'origin of the order; from 3.5.0 the only source read' })),
  },
  { additionalProperties: true },
);
const OrderParams = Type.Object({ orderUuid: Type.String() });
const PaymentBody = Type.Object({ uuid: Type.Optional(Type.String()), id: Type.Optional(Type.Integer({ description: 'deprecated numeric order id' })) });

/** The order's source by the spec's version rule: before 3.5.0 a source in extra_data counts too. */
function sourceOf(body: Static<typeof OrderBody>, version: string): string | null {
  if (body.source !== undefined || compareVersions(version, '3.5.0') >= 0) return body.source ?? null;
  let extra: unknown = body.extra_data;
  if (typeof extra === 'string') {
    try {
      extra = JSON.parse(extra);
    } catch {
      return null;
    }
  }
  const s = (extra as { source?: unknown } | undefined)?.source;
  return typeof s === 'string' ? s : null;
}

/** The fields of an object that have a value (not null): what the vendor's schema allows in place of null. */
function present(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null && v !== undefined));
}

/** Renders an order; prices in the currency the order was placed in. */
export function orderView(app: FastifyInstance, request: FastifyRequest, order: Order) {
  const view = cartView(app, request);
  const cur = app.catalog.currencyByCode.get(order.currency);
  const price = (amount: number, from: string) => {
    const f = app.catalog.currencyByCode.get(from);
    return f && cur ? toPrice(amount, f, cur, request.service.locale.locale) : view.price(amount, from);
  };
  let total = 0;
  let original = 0;
  const items = order.items.map((x) => {
    const unit = price(x.unit.retail_price, x.supplier_currency);
    const line = price(x.unit.retail_price * x.quantity, x.supplier_currency);
    total += line.value;
    original += price(x.unit.original_retail_price * x.quantity, x.supplier_currency).value;
    const { product } = view.item({ ...x, participants: null, created_at: x.created_at });
    return {
      uuid: x.uuid, code: x.code, cart_item_uuid: x.cart_item_uuid, transaction_code: null, product, quantity: x.quantity, status: x.status,
      vouchers: x.status === 'OK' ? [{ url: voucherUrl(request, x) }] : [],
      retail_price_in_order_currency: unit,
      total_retail_price_in_order_currency: line,
      original_retail_price_in_supplier_currency: view.supplierPrice(x.unit.original_retail_price, x.supplier_currency),
      total_original_retail_price_in_supplier_currency: view.supplierPrice(x.unit.original_retail_price * x.quantity, x.supplier_currency),
      b2b_price: null, is_gift_redeem: false, extra_customer_data: x.extra_customer_data, participants_info: x.participants_info.map(passengerInfo),
      cancellation_reason: x.cancellation_reason, cancellation_additional_info: x.cancellation_additional_info,
      error_status: x.status === 'KO', version: x.version, created_at: x.created_at, updated_at: x.updated_at,
    };
  });
  return {
    identifier: order.identifier, uuid: order.uuid, id: order.id, date: order.created_at, status: order.paid ? 'OK' : 'PENDING',
    customer: order.customer, items,
    total_price: price(total, order.currency),
    discount_amount: price(original - total, order.currency),
    total_retail_price_in_order_currency: price(total, order.currency),
    market: order.market,
    // Left out when not given, rather than null: the vendor's schema types them string or object, without null.
    ...present({
      source: order.source,
      extra_data: order.extra_data,
      // The request gives the affiliate's code; the vendor's Affiliate is an object.
      affiliate: order.affiliate === null ? null : { code: order.affiliate, name: order.affiliate, logo_url: '' },
      affiliate_channel: order.affiliate_channel,
    }),
    email_notification: order.email_notification, version: order.version, created_at: order.created_at, updated_at: order.updated_at,
  };
}

export default async function ordersRoutes(app: FastifyInstance) {
  const tags = ['orders'];

  app.post<{ Body: Static<typeof OrderBody> }>('/orders', { schema: { tags, summary: 'Create an order from a cart', body: OrderBody, response: { 200: OrderSchema } } }, async (request) => {
    const body = request.body;
    const cart = cartOf(app, request, body.cart_uuid);
    if (cart.order_uuid) throw errors.cartLocked();
    const missing: string[] = [];
    if (!cart.items.length) missing.push('the cart is empty');
    if (!cart.customer) missing.push('the customer (PUT /carts/{cartUuid}/customer)');
    for (const x of cart.items) {
      const { activity } = resolve(app, x);
      if (activity.booking.extra_customer_data.length && !cart.extra_customer_data[activity.uuid]) missing.push(`extra customer data for activity ${activity.uuid}`);
    }
    const noParticipants = missingParticipants(app, cart);
    if (noParticipants.length) missing.push(`participant info for cart items ${noParticipants.join(', ')}`);
    if (missing.length) throw errors.validation(`Cannot create the order: missing ${[...new Set(missing)].join('; ')}`);
    const at = app.now(request.service.application).toISOString();
    const extra = body.extra_data === undefined ? null : typeof body.extra_data === 'string' ? body.extra_data : JSON.stringify(body.extra_data);
    const order = await app.store.update(request.service.application, (t) => {
      // Checked again under the application's lock: the same cart ordered twice at once makes one order.
      openCartIn(t, cart.uuid);
      const id = (t.counters.order ?? 4000000) + 1;
      t.counters.order = id;
      const items: OrderItem[] = cart.items.map((x, i) => {
        const { activity, holder } = resolve(app, x);
        const ecd = cart.extra_customer_data[activity.uuid] ?? {};
        return {
          ...x, code: `MUS${id}-${i + 1}`, cart_item_uuid: x.uuid, uuid: randomUUID(), supplier_currency: activity.supplier_currency,
          unit: { retail_price: holder.retail_price, original_retail_price: holder.original_retail_price, service_fee: holder.service_fee, merchant_price: holder.merchant_price },
          status: 'PENDING', version: 1, created_at: at, updated_at: at,
          extra_customer_data: Object.entries(ecd).map(([name, value]) => ({ name, value: String(value) })),
          participants_info: x.participants ?? [], cancellation_reason: null, cancellation_additional_info: null,
        };
      });
      const o: Order = {
        uuid: randomUUID(), id, identifier: `MUS${String(id).padStart(7, '0')}`, cart_uuid: cart.uuid, created_at: at, updated_at: at, version: 1,
        paid: false, currency: request.service.currency, customer: cart.customer!, items, market: request.service.market, source: sourceOf(body, request.service.version),
        extra_data: extra, affiliate: body.affiliate ?? null, affiliate_channel: body.affiliate_channel ?? null, email_notification: body.email_notification,
      };
      t.orders[o.uuid] = o as unknown as OrderRecord;
      (t.carts[cart.uuid] as unknown as Cart).order_uuid = o.uuid;
      return o;
    });
    // Indexed once committed: a write retried on a fresher tenant makes new uuids.
    app.orderItems.add(request.service.application, order);
    return orderView(app, request, order);
  });

  app.get<{ Params: Static<typeof OrderParams> }>('/orders/:orderUuid', { schema: { tags, summary: 'An order', params: OrderParams, response: { 200: OrderSchema } } }, async (request) =>
    orderView(app, request, orderOf(app, request, request.params.orderUuid)),
  );

  app.post<{ Body: Static<typeof PaymentBody> }>('/payments/no/payment', { schema: { tags: ['payments'], summary: 'Pay an order without a payment (merchant of record)', body: PaymentBody, response: { 200: OrderSchema } } }, async (request) => {
    const { uuid, id } = request.body;
    if (uuid === undefined && id === undefined) throw errors.validation('body "uuid" is required');
    const orders = app.store.tenant(request.service.application).orders as unknown as Record<string, Order>;
    const order = uuid !== undefined ? orders[uuid] : Object.values(orders).find((o) => o.id === id);
    if (!order) throw errors.notFound(`Order ${clip(uuid ?? id)} does not exist`);
    if (order.paid) throw errors.alreadyPaid(order.uuid);
    const total = order.items.reduce((n, x) => n + x.unit.retail_price * x.quantity, 0);
    if (total > 0) {
      const refuse = () => errors.paymentNotAllowed();
      if (!request.service.partner) throw refuse();
      requireScope(request, 'no-payment', refuse);
    }
    const application = request.service.application;
    const [saved, deliveries, started] = await app.store.update(application, (t) => {
      const o = t.orders[order.uuid] as unknown as Order | undefined;
      // Checked again under the application's lock: an order paid twice at once is paid once, and
      // one dropped meanwhile by a reset on another instance is not found.
      if (!o) throw errors.notFound(`Order ${clip(order.uuid)} does not exist`);
      if (o.paid) throw errors.alreadyPaid(o.uuid);
      o.paid = true;
      o.updated_at = app.now(application).toISOString();
      // A scenario attached to an item (e.g. lead booker ko@example.com) replaces the defaults of
      // INTERFACE.md section 3: instant-confirmation items are confirmed at once, others wait.
      // Its first steps may be due at once: applied in this write (scenario-runner.ts).
      const started: Started[] = [];
      const sent = o.items.flatMap((x) => {
        const scenario = app.scenarioRunner.attached('payment', application, o, x);
        if (scenario) {
          started.push(app.scenarioRunner.start(t, application, o, x, scenario));
          return [];
        }
        return resolve(app, x).activity.needs_voucher ? [] : [moveItem(app, t, application, o, x, 'OK')];
      });
      return [o, sent, started] as const;
    });
    sendAll(app, deliveries);
    app.scenarioRunner.after(started);
    return orderView(app, request, app.store.tenant(application).orders[saved.uuid] as unknown as Order);
  });
}
