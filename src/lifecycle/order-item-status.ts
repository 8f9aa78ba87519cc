import { errors } from '../http/errors.js';

/**
 * The order-item lifecycle of INTERFACE.md section 3, in one place: the admin status endpoint, the
 * booking flow, scenarios and their validation all ask this table, so they cannot disagree.
 */
export const ORDER_ITEM_STATUSES = ['PENDING', 'OK', 'KO', 'CANCELLATION_ERROR', 'REFUND_STARTED', 'REFUNDED'] as const;
export type OrderItemStatus = (typeof ORDER_ITEM_STATUSES)[number];

/** from -> the statuses it may move to. KO and REFUNDED are final. */
export const TRANSITIONS: Readonly<Record<OrderItemStatus, readonly OrderItemStatus[]>> = Object.freeze({
  PENDING: Object.freeze(['OK', 'KO'] as const),
  OK: Object.freeze(['REFUND_STARTED', 'REFUNDED'] as const),
  KO: Object.freeze([] as const),
  REFUND_STARTED: Object.freeze(['REFUNDED', 'CANCELLATION_ERROR'] as const),
  CANCELLATION_ERROR: Object.freeze(['OK', 'REFUNDED'] as const),
  REFUNDED: Object.freeze([] as const),
});

export function isOrderItemStatus(value: unknown): value is OrderItemStatus {
  return typeof value === 'string' && (ORDER_ITEM_STATUSES as readonly string[]).includes(value);
}

/** Statuses as a person types them, comma-separated (`ok, ko`): upper-cased, and the first that is none. */
export function parseStatuses(raw: string): { statuses: OrderItemStatus[]; bad: string | undefined } {
  const all = raw.split(',').map((e) => e.trim().toUpperCase()).filter(Boolean);
  return { statuses: all.filter(isOrderItemStatus), bad: all.find((e) => !isOrderItemStatus(e)) };
}

export function canMove(from: OrderItemStatus, to: OrderItemStatus): boolean {
  return TRANSITIONS[from]?.includes(to) ?? false;
}

/** Throws the 409 {code, message} of a forbidden move (naming both statuses and what is allowed). */
export function assertMove(from: OrderItemStatus, to: OrderItemStatus): void {
  if (!canMove(from, to)) throw errors.forbiddenStatusMove(from, to, TRANSITIONS[from] ?? []);
}
