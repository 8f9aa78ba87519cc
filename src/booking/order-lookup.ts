import type { FastifyInstance, FastifyRequest } from 'fastify';
import { clip, errors } from '../http/errors.js';
import type { Order, OrderItem } from './records.js';

/** The hint of a 404 when the id is an identifier or code of the right thing (a client sends `code` where the path takes `uuid`). */
const takesUuid = (id: string, what: string, uuid: string) => `: ${clip(id)} is the ${what}; this path takes its uuid (${uuid})`;

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
  throw errors.notFound(`Order ${clip(uuid)} does not exist${hint}`);
}

/** An item of an order, or 404 1400 (saying so when the id is the item's code). */
export function orderItemOf(order: Order, uuid: string): OrderItem {
  const item = order.items.find((x) => x.uuid === uuid);
  if (item) return item;
  const byCode = order.items.find((x) => x.code === uuid);
  throw errors.notFound(`Order item ${clip(uuid)} does not exist${byCode ? takesUuid(uuid, "order item's code", byCode.uuid) : ''}`);
}
