import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { Store } from '../store/index.js';
import type { Order, OrderItem } from './records.js';

export interface LocatedItem {
  application: string;
  order: Order;
  item: OrderItem;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Finds an order item by uuid alone (control API, scenario runs, voucher links). */
    orderItems: OrderItemIndex;
  }
}

/**
 * Item uuid to order uuid, per application. A scan of every order cost each control-API move about
 * a millisecond with 3,000 orders, and grew with every order booked. Built from the state on the
 * first lookup in an application, extended as orders are created, dropped when the application is
 * reset; a hit is read back from the state, so a stale entry can never answer for a gone order. A
 * miss in an application whose order count changed unseen (orders written by another instance sharing
 * the store) builds its index again.
 */
export class OrderItemIndex {
  readonly #byApp = new Map<string, Map<string, string>>();

  constructor(private readonly store: Store) {
    store.onReset((application) => (application === null ? this.#byApp.clear() : this.#byApp.delete(application)));
  }

  /** Called with every order written: the index of a built application learns its items. */
  add(application: string, order: Order): void {
    const index = this.#byApp.get(application);
    if (index) for (const x of order.items) index.set(x.uuid, order.uuid);
  }

  /** The item and its order, in one application or (none given) in any. */
  find(itemUuid: string, application?: string): LocatedItem | null {
    for (const app of application === undefined ? this.store.applications() : [application]) {
      let orderUuid = this.#index(app).get(itemUuid);
      if (orderUuid === undefined && this.#stale(app)) {
        this.#byApp.delete(app);
        orderUuid = this.#index(app).get(itemUuid);
      }
      const order = orderUuid === undefined ? undefined : (this.store.tenant(app).orders[orderUuid] as unknown as Order | undefined);
      const item = order?.items.find((x) => x.uuid === itemUuid);
      if (order && item) return { application: app, order, item };
    }
    return null;
  }

  /** Whether the application holds orders its index has not seen (its index counts the orders it holds). */
  #stale(application: string): boolean {
    const index = this.#byApp.get(application);
    return index !== undefined && Object.keys(this.store.tenant(application).orders).length !== this.#orders(index);
  }

  #orders(index: Map<string, string>): number {
    return new Set(index.values()).size;
  }

  #index(application: string): Map<string, string> {
    let index = this.#byApp.get(application);
    if (!index) {
      index = new Map();
      // Not kept for an application without orders: a lookup with any name would grow the map.
      if (Object.keys(this.store.tenant(application).orders).length === 0) return index;
      for (const raw of Object.values(this.store.tenant(application).orders)) {
        const order = raw as unknown as Order;
        for (const x of order.items) index.set(x.uuid, order.uuid);
      }
      this.#byApp.set(application, index);
    }
    return index;
  }
}

async function orderItemsPlugin(app: FastifyInstance) {
  app.decorate('orderItems', new OrderItemIndex(app.store));
}

export default fp(orderItemsPlugin, { name: 'order-items', dependencies: ['store'], fastify: '5.x' });
