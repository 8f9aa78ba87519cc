import type { OrderItemStatus } from '../lifecycle/order-item-status.js';

/**
 * What the booking flow hands the dispatcher when an item moved: the order and the item as they are
 * right after the move (`from`: its status before, for the delivery log and a listener's line; not
 * in the payload). Dates are instants on the server clock (Date or an ISO 8601 string).
 */
export interface OrderItemSnapshot {
  order: { id: number; uuid: string; created: Date | string; updated: Date | string; version: number };
  item: { uuid: string; created: Date | string; updated: Date | string; version: number; status: OrderItemStatus; from?: OrderItemStatus };
}

/** The spec's "Update order item" body: every field a string, in the spec's order. */
export interface UpdateOrderItemPayload {
  order_id: string;
  order_uuid: string;
  order_created: string;
  order_updated: string;
  order_version: string;
  order_item_uuid: string;
  order_item_created: string;
  order_item_updated: string;
  order_item_version: string;
  order_item_status: OrderItemStatus;
}

/**
 * `2026-01-15T10:00:00+0000`: the spec asks for a numeric offset (not `Z`) and shows no fraction;
 * we always send UTC.
 */
export function formatWebhookDateTime(at: Date | string): string {
  const d = typeof at === 'string' ? new Date(at) : at;
  if (Number.isNaN(d.getTime())) throw new RangeError(`not a date-time: ${String(at)}`);
  return `${d.toISOString().slice(0, 19)}+0000`;
}

function digits(n: number, field: string): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${field} must be a non-negative integer, got ${n}`);
  return String(n);
}

export function buildPayload(s: OrderItemSnapshot): UpdateOrderItemPayload {
  return {
    order_id: digits(s.order.id, 'order.id'),
    order_uuid: s.order.uuid,
    order_created: formatWebhookDateTime(s.order.created),
    order_updated: formatWebhookDateTime(s.order.updated),
    order_version: digits(s.order.version, 'order.version'),
    order_item_uuid: s.item.uuid,
    order_item_created: formatWebhookDateTime(s.item.created),
    order_item_updated: formatWebhookDateTime(s.item.updated),
    order_item_version: digits(s.item.version, 'item.version'),
    order_item_status: s.item.status,
  };
}

/** The exact bytes sent (and signed): compact JSON in the field order above. */
export function serializePayload(p: UpdateOrderItemPayload): string {
  return JSON.stringify(p);
}
