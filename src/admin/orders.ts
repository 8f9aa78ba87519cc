import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { moveItem, sendAll } from '../booking/lifecycle.js';
import { isOrderItemStatus, ORDER_ITEM_STATUSES } from '../booking/order-item-status.js';
import type { Order } from '../booking/records.js';
import { clip, errors } from '../http/errors.js';

const summary = (application: string, o: Order) => ({
  application, uuid: o.uuid, id: o.id, identifier: o.identifier, paid: o.paid, version: o.version, created_at: o.created_at, updated_at: o.updated_at,
  items: o.items.map((x) => ({ uuid: x.uuid, status: x.status, version: x.version, activity_uuid: x.activity_uuid, product_identifier: x.product_identifier, date: `${x.day}${x.time ? ` ${x.time}` : ''}`, quantity: x.quantity, updated_at: x.updated_at })),
});

/** GET /__admin/orders and POST /__admin/order-items/{uuid}/status: see and move order items by hand. */
export default async function orderAdminRoutes(app: FastifyInstance) {
  const apps = (only?: string) => (only === undefined ? app.store.applications() : [only]);
  const ordersOf = (application: string) => Object.values(app.store.tenant(application).orders) as unknown as Order[];

  app.get<{ Querystring: { application?: string } }>('/orders', async (request) => ({
    orders: apps(request.query.application).flatMap((a) => ordersOf(a).map((o) => summary(a, o))),
  }));

  const Body = Type.Object({ status: Type.String({ description: ORDER_ITEM_STATUSES.join(', ') }) });
  app.post<{ Params: { uuid: string }; Querystring: { application?: string }; Body: Static<typeof Body> }>(
    '/order-items/:uuid/status',
    { schema: { body: Body } },
    async (request) => {
      const { status } = request.body;
      if (!isOrderItemStatus(status)) throw errors.validation(`body "status" must be one of ${ORDER_ITEM_STATUSES.join(', ')}`);
      const found = app.orderItems.find(request.params.uuid, request.query.application);
      if (!found) throw errors.notFound(`Order item ${clip(request.params.uuid)} does not exist`);
      const { application, order } = found;
      const [item, delivery] = await app.store.update(application, (t) => {
        const o = t.orders[order.uuid] as unknown as Order;
        const x = o.items.find((i) => i.uuid === request.params.uuid)!;
        return [x, moveItem(app, t, application, o, x, status)] as const;
      });
      sendAll(app, [delivery]);
      return { application, order_uuid: order.uuid, uuid: item.uuid, status: item.status, version: item.version, updated_at: item.updated_at };
    },
  );
}
