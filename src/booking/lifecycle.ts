import type { FastifyInstance } from 'fastify';
import type { Tenant } from '../store/index.js';
import type { Delivery } from '../webhooks/index.js';
import { assertMove, type OrderItemStatus } from '../lifecycle/order-item-status.js';
import type { Order, OrderItem } from './records.js';

/**
 * Moves one order item inside a store.update(): checks the transition table, bumps the item's and
 * the order's version and updated time, and records the webhook in the same write. Returns the
 * delivery to send once the write is on disk (null without a webhook URL).
 */
export function moveItem(app: FastifyInstance, tenant: Tenant, application: string, order: Order, item: OrderItem, to: OrderItemStatus): Delivery | null {
  assertMove(item.status, to);
  const from = item.status;
  const at = app.now(application).toISOString();
  item.status = to;
  item.version += 1;
  item.updated_at = at;
  order.version += 1;
  order.updated_at = at;
  return app.webhooks.record(tenant, application, {
    order: { id: order.id, uuid: order.uuid, created: order.created_at, updated: order.updated_at, version: order.version },
    item: { uuid: item.uuid, created: item.created_at, updated: item.updated_at, version: item.version, status: item.status, from },
  });
}

/** Starts sending what moveItem recorded, after the write that holds it resolved. */
export function sendAll(app: FastifyInstance, deliveries: (Delivery | null)[]): void {
  for (const d of deliveries) app.webhooks.send(d);
}
