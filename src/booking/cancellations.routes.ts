import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { requireScope } from '../auth/index.js';
import { convert, toPrice } from '../catalog/money.js';
import { clip, errors } from '../http/errors.js';
import type { RefundPolicyRecord } from '../seed/types.js';
import { durationToMs, formatDuration, parseDuration } from '../time/duration.js';
import { resolve } from './carts.js';
import { moveItem, sendAll } from './lifecycle.js';
import { orderItemOf as itemOf, orderOf } from './order-lookup.js';
import { CANCELLATION_REASONS, RefundSchema, RefundTierSchema } from './orders.schemas.js';
import type { Order, OrderItem, Refund } from './records.js';

const ItemParams = Type.Object({ orderUuid: Type.String(), orderItemUuid: Type.String() });
type IP = { Params: Static<typeof ItemParams> };
const CancelBody = Type.Object({
  cancellation_reason: Type.Enum(CANCELLATION_REASONS),
  cancellation_additional_info: Type.Optional(Type.String({ maxLength: 255 })),
  cancellation_integration_data: Type.Optional(Type.Object({}, { additionalProperties: true })),
});

/** The booked start of an item: its day and time (all-day items start at midnight). */
const startOf = (item: OrderItem) => new Date(`${item.day}T${item.time || '00:00'}:00Z`);
const minute = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ');

/** Each tier, with the last moment it applies: at least `period` before the start. */
function tiers(policies: RefundPolicyRecord[], item: OrderItem) {
  return policies.map((p) => ({ policy: p, until: new Date(startOf(item).getTime() - durationToMs(parseDuration(p.period), startOf(item))) }));
}

/** What cancelling now refunds, in the supplier currency: the best tier still open, else nothing. */
export function refundAmount(policies: RefundPolicyRecord[], item: OrderItem, now: Date): number {
  const paid = item.unit.retail_price * item.quantity;
  const open = tiers(policies, item).filter((t) => now.getTime() <= t.until.getTime());
  const amounts = open.map(({ policy: p }) => (p.type === 'PERCENTAGE' ? (paid * p.value) / 100 : Math.min(paid, p.value)));
  return Math.round(Math.max(0, ...amounts) * 100) / 100;
}

export default async function cancellationsRoutes(app: FastifyInstance) {
  const tags = ['cancellations'];
  /**
   * Renders a refund as a Price in the currency the order was placed in, like the order's prices.
   * Refunds recorded before this rule (state files of older versions) are in the supplier currency:
   * they are converted here, so they show the same way.
   */
  const view = (request: FastifyRequest, order: Order) => (p: Refund) => {
    const from = app.catalog.currencyByCode.get(p.currency);
    const to = app.catalog.currencyByCode.get(order.currency) ?? from;
    const amount = from && to
      ? toPrice(p.amount, from, to, request.service.locale.locale)
      : { currency: p.currency, value: p.amount, formatted_value: String(p.amount), formatted_iso_value: String(p.amount) };
    return { uuid: p.uuid, order_item_uuid: p.order_item_uuid, status: 'PAID', amount, cancellation_reason: p.reason, created_at: p.created_at };
  };

  app.delete<IP & { Body: Static<typeof CancelBody> }>(
    '/orders/:orderUuid/items/:orderItemUuid',
    { schema: { tags, summary: 'Cancel an order item (needs the order-item-cancellation scope)', params: ItemParams, body: CancelBody } },
    async (request, reply) => {
      requireScope(request, 'order-item-cancellation');
      const order = orderOf(app, request, request.params.orderUuid);
      const item = itemOf(order, request.params.orderItemUuid);
      if (item.status !== 'OK') throw errors.notCancellable(item.uuid, item.status);
      const application = request.service.application;
      const now = app.now(application);
      const supplierAmount = refundAmount(resolve(app, item).activity.booking.refund_policies, item, now);
      // Refunded in the currency the order was placed (and paid) in.
      const from = app.catalog.currencyByCode.get(item.supplier_currency);
      const to = app.catalog.currencyByCode.get(order.currency);
      const [amount, currency] = from && to ? [convert(supplierAmount, from, to), to.code] : [supplierAmount, item.supplier_currency];
      const { sent, started } = await app.store.update(application, (t) => {
        const o = t.orders[order.uuid] as unknown as Order | undefined;
        // Found again under the lock: a reset on another instance may have dropped it meanwhile.
        if (!o) throw errors.notFound(`Order ${clip(order.uuid)} does not exist`);
        const x = itemOf(o, item.uuid);
        // Checked again under the application's lock: an item cancelled twice at once is cancelled once.
        if (x.status !== 'OK') throw errors.notCancellable(x.uuid, x.status);
        x.cancellation_reason = request.body.cancellation_reason;
        x.cancellation_additional_info = request.body.cancellation_additional_info ?? null;
        // A scenario attached to the cancellation (e.g. cancel-error@example.com) scripts what follows;
        // else INTERFACE.md section 3: REFUND_STARTED, then REFUNDED.
        // Its steps due at once are applied in this write (scenario-runner.ts).
        const scenario = app.scenarioRunner.attached('cancellation', application, o, x);
        const started = scenario ? [app.scenarioRunner.start(t, application, o, x, scenario)] : [];
        const sent = scenario ? [] : [moveItem(app, t, application, o, x, 'REFUND_STARTED'), moveItem(app, t, application, o, x, 'REFUNDED')];
        o.refunds = [...(o.refunds ?? []), { uuid: randomUUID(), order_item_uuid: x.uuid, amount, currency, reason: request.body.cancellation_reason, created_at: now.toISOString() }];
        return { sent, started };
      });
      sendAll(app, sent);
      app.scenarioRunner.after(started);
      return reply.code(204).send();
    },
  );

  app.get<IP>(
    '/orders/:orderUuid/items/:orderItemUuid/refund-policies',
    { schema: { tags, summary: "Refund tiers of an item, with when each stops applying", params: ItemParams, response: { 200: Type.Array(RefundTierSchema) } } },
    async (request) => {
      const order = orderOf(app, request, request.params.orderUuid);
      const item = itemOf(order, request.params.orderItemUuid);
      const { activity } = resolve(app, item);
      if (!activity.booking.refund_policies.length) throw errors.notFound('No refund policy for this order item');
      const now = app.now(request.service.application).getTime();
      return tiers(activity.booking.refund_policies, item).map(({ policy: p, until }) => ({
        ...p, ...(p.type === 'ABSOLUTE' ? { currency_code: activity.supplier_currency } : {}),
        applicable_until: minute(until), remaining_time: formatDuration(Math.max(0, until.getTime() - now)),
      }));
    },
  );

  app.get<{ Params: { orderUuid: string } }>(
    '/orders/:orderUuid/refunds',
    { schema: { tags, summary: 'Paid refunds of an order', params: Type.Object({ orderUuid: Type.String() }), response: { 200: Type.Array(RefundSchema) } } },
    async (request) => {
      const order = orderOf(app, request, request.params.orderUuid);
      return (order.refunds ?? []).map(view(request, order));
    },
  );

  app.post<IP>(
    '/orders/:orderUuid/items/:orderItemUuid/notifications',
    { schema: { tags: ['webhooks'], summary: 'Send the Update order item webhook again with the current status', params: ItemParams } },
    async (request, reply) => {
      const order = orderOf(app, request, request.params.orderUuid);
      const item = itemOf(order, request.params.orderItemUuid);
      const application = request.service.application;
      if (!app.webhooks.target(application)) throw errors.validation('No webhook URL is configured for this application');
      const delivery = await app.store.update(application, (t) => {
        // The status and versions as they are under the lock: read before it, a move committed
        // meanwhile (on another instance) would be sent again as the older status, after the newer.
        const o = t.orders[order.uuid] as unknown as Order | undefined;
        if (!o) throw errors.notFound(`Order ${clip(order.uuid)} does not exist`);
        const x = itemOf(o, item.uuid);
        return app.webhooks.record(t, application, {
          order: { id: o.id, uuid: o.uuid, created: o.created_at, updated: o.updated_at, version: o.version },
          item: { uuid: x.uuid, created: x.created_at, updated: x.updated_at, version: x.version, status: x.status },
        });
      });
      app.webhooks.send(delivery);
      return reply.code(204).send();
    },
  );
}
