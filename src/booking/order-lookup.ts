import type { FastifyInstance, FastifyRequest } from 'fastify';
import { clip, errors } from '../http/errors.js';
import type { Order, OrderItem } from './records.js';

/** The hint of a 404 when the id is an identifier or code of the right thing (a client sends `code` where the path takes `uuid`). */
const takesUuid = (id: string, what: string, uuid: string) => `: ${clip(id)} is the ${what}; this path takes its uuid (${uuid})`;

/**
 * What a 404 for a cart or order says when another application holds it, on a sandbox that is not
 * shared: one client configured with two application names is the common cause. A shared sandbox
 * never says (there the id is another partner's).
 */
export function heldElsewhere(app: FastifyInstance, request: FastifyRequest, what: 'Cart' | 'Order', uuid: string): string | null {
  if (app.config.shared) return null;
  const mine = request.service.application;
  const collection = what === 'Cart' ? 'carts' : 'orders';
  const owner = app.store.applications().find((a) => a !== mine && app.store.tenant(a)[collection][uuid]);
  if (owner === undefined) return null;
  return `${what} ${clip(uuid)} was created under application "${clip(owner)}": send the ${app.config.headerPrefix}Application header it was created with`;
}

/** An order of the request's application, or 404 1400 (saying so when the id is an order identifier or an item code). */
export function orderOf(app: FastifyInstance, request: FastifyRequest, uuid: string): Order {
  const orders = app.store.tenant(request.service.application).orders as unknown as Record<string, Order>;
  const order = orders[uuid];
  if (order) return order;
  let hint = '';
  for (const o of Object.values(orders)) {
    if (o.identifier === uuid) hint = takesUuid(uuid, "order's identifier", o.uuid);
    else if (o.items.some((x) => x.code === uuid)) hint = takesUuid(uuid, "code of an item of order", o.uuid);
    if (hint) break;
  }
  throw errors.notFound((!hint && heldElsewhere(app, request, 'Order', uuid)) || `Order ${clip(uuid)} does not exist${hint}`);
}

/** An item of an order, or 404 1400 (saying so when the id is the item's code). */
export function orderItemOf(order: Order, uuid: string): OrderItem {
  const item = order.items.find((x) => x.uuid === uuid);
  if (item) return item;
  const byCode = order.items.find((x) => x.code === uuid);
  throw errors.notFound(`Order item ${clip(uuid)} does not exist${byCode ? takesUuid(uuid, "order item's code", byCode.uuid) : ''}`);
}
