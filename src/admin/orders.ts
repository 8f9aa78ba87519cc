import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { moveItem, sendAll } from '../booking/lifecycle.js';
import { isOrderItemStatus, ORDER_ITEM_STATUSES, TRANSITIONS } from '../lifecycle/order-item-status.js';
import type { Order } from '../booking/records.js';
import type { StoredRun } from '../booking/scenario-runner.js';
import { clip, errorResponses, errors } from '../http/errors.js';
import { ApplicationQuery } from './docs.js';
import { runView } from './scenarios.js';

const summary = (application: string, o: Order, runs: Readonly<Record<string, unknown>>) => ({
  application, uuid: o.uuid, id: o.id, identifier: o.identifier, paid: o.paid, version: o.version, created_at: o.created_at, updated_at: o.updated_at,
  items: o.items.map((x) => ({
    uuid: x.uuid, code: x.code, status: x.status, version: x.version, activity_uuid: x.activity_uuid, product_identifier: x.product_identifier,
    date: `${x.day}${x.time ? ` ${x.time}` : ''}`, quantity: x.quantity, updated_at: x.updated_at, moves: TRANSITIONS[x.status], scenario: runs[x.uuid] ? runView(runs[x.uuid] as StoredRun) : null,
  })),
});

/** GET /__admin/orders and POST /__admin/order-items/{uuid}/status: see and move order items by hand. */
export default async function orderAdminRoutes(app: FastifyInstance) {
  const apps = (only?: string) => (only === undefined ? app.store.applications() : [only]);
  app.get<{ Querystring: { application?: string } }>(
    '/orders',
    { schema: { summary: 'List orders', description: 'Every order of every application (or of `application`), with its items, the statuses each may move to and its scenario run.', querystring: ApplicationQuery } },
    async (request) => ({
      orders: apps(request.query.application).flatMap((a) => {
        const t = app.store.tenant(a);
        return (Object.values(t.orders) as unknown as Order[]).map((o) => summary(a, o, t.scenario_runs));
      }),
    }),
  );

  const Body = Type.Object({ status: Type.String({ description: ORDER_ITEM_STATUSES.join(', ') }) });
  app.post<{ Params: { uuid: string }; Querystring: { application?: string }; Body: Static<typeof Body> }>(
    '/order-items/:uuid/status',
    {
      schema: {
        summary: 'Move an order item to a status',
        description: 'As the lifecycle allows (GET /__admin/orders lists the moves); sends the webhook the move implies. `application` narrows the search for the uuid.',
        body: Body,
        querystring: ApplicationQuery,
        response: errorResponses({ 400: 'Not a known status', 404: 'No such order item', 409: 'The lifecycle forbids the move', 503: 'The state file did not take the write' }),
      },
    },
    async (request) => {
      const { status } = request.body;
      if (!isOrderItemStatus(status)) throw errors.validation(`body "status" must be one of ${ORDER_ITEM_STATUSES.join(', ')}`);
      const gone = () => errors.notFound(`Order item ${clip(request.params.uuid)} does not exist`);
      const found = app.orderItems.find(request.params.uuid, request.query.application);
      if (!found) throw gone();
      const { application, order } = found;
      const [item, delivery] = await app.store.update(application, (t) => {
        // Found again under the lock: a reset on another instance may have dropped it meanwhile.
        const o = t.orders[order.uuid] as unknown as Order | undefined;
        const x = o?.items.find((i) => i.uuid === request.params.uuid);
        if (!o || !x) throw gone();
        return [x, moveItem(app, t, application, o, x, status)] as const;
      });
      sendAll(app, [delivery]);
      return { application, order_uuid: order.uuid, uuid: item.uuid, status: item.status, version: item.version, updated_at: item.updated_at };
    },
  );
}
