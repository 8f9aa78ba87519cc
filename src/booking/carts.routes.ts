import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { clip, errors } from '../http/errors.js';
import type { CartRecord, Tenant } from '../store/index.js';
import { sweepDue } from '../schedule/index.js';
import { addDuration, parseDuration } from '../time/duration.js';
import { cartView, checkItem, MAX_ITEMS, type ItemInput } from './carts.js';
import { heldElsewhere } from './order-lookup.js';
import { CartItemSchema, CartSchema, OrderInfoSchema } from './carts.schemas.js';
import type { Cart, CartItemRecord, Order } from './records.js';

const CartParams = Type.Object({ cartUuid: Type.String() });
const ItemParams = Type.Object({ cartUuid: Type.String(), cartItemUuid: Type.String() });
type CP = { Params: Static<typeof CartParams> };
type IP = { Params: Static<typeof ItemParams> };
const ItemBody = Type.Object(
  {
    type: Type.Optional(Type.String({ description: 'musement (default), musement-realtime, musement-giftbox, musement-gift' })),
    product_identifier: Type.String({ description: 'a product_id from GET /activities/{uuid}/dates/{day}' }),
    quantity: Type.Union([Type.Integer({ minimum: 1 }), Type.String({ pattern: '^\\d+$' })]),
    language: Type.Optional(Type.String({ description: 'required when the activity has language options' })),
    pickup: Type.Optional(Type.String({ description: 'pickup uuid; required for pickup activities' })),
  },
  { additionalProperties: true },
);

/** Carts without an order are deleted 3 months after their last change, as the real service does. */
const CART_RETENTION = parseDuration('P3M');

/** Whether a cart is past its retention on the server clock (a sweep may not have removed it yet). */
function expired(cart: Cart, now: Date): boolean {
  return cart.order_uuid === null && addDuration(new Date(cart.updated_at), CART_RETENTION) <= now;
}

/** A cart of the request's application, or 404 1400. */
export function cartOf(app: FastifyInstance, request: FastifyRequest, uuid: string): Cart {
  const cart = app.store.tenant(request.service.application).carts[uuid] as unknown as Cart | undefined;
  if (!cart) throw errors.notFound(heldElsewhere(app, request, 'Cart', uuid) ?? `Cart ${clip(uuid)} does not exist`);
  if (expired(cart, app.now(request.service.application))) throw errors.notFound(`Cart ${cart.uuid} does not exist: carts without an order are deleted 3 months after their last change`);
  return cart;
}

/** Carts attached to an order no longer change: 423 code -1, as the real API answers. */
export function assertOpen(cart: Cart): void {
  if (cart.order_uuid) throw errors.cartLocked();
}

/**
 * The cart inside a store.update(), checked again: on a store shared by instances the function runs
 * later, under the application's lock, and another request may have deleted or ordered the cart since
 * the route's own check.
 */
export function openCartIn(t: Tenant, uuid: string): Cart {
  const cart = t.carts[uuid] as unknown as Cart | undefined;
  if (!cart) throw errors.notFound(`Cart ${clip(uuid)} does not exist`);
  assertOpen(cart);
  return cart;
}

export default async function cartsRoutes(app: FastifyInstance) {
  const tags = ['carts'];
  const now = (request: FastifyRequest) => app.now(request.service.application).toISOString();
  const save = (request: FastifyRequest, uuid: string, change: (cart: Cart) => void) =>
    app.store.update(request.service.application, (t) => {
      const cart = openCartIn(t, uuid);
      change(cart);
      cart.updated_at = now(request);
      return cart;
    });

  app.post('/carts', { schema: { tags, summary: 'Create an empty cart', response: { 200: CartSchema } } }, async (request) => {
    const { application } = request.service;
    const clock = app.now(application);
    const at = clock.toISOString();
    const cart: Cart = { uuid: randomUUID(), created_at: at, updated_at: at, items: [], customer: null, extra_customer_data: {}, order_uuid: null };
    // Expired carts go with a later cart's creation (found on the read-only view: only those deleted count as written).
    const carts = app.store.tenant(application).carts as unknown as Record<string, Cart>;
    const stale = sweepDue(app.store, application, 'carts', clock.getTime()) ? Object.keys(carts).filter((k) => expired(carts[k] as Cart, clock)) : [];
    await app.store.update(application, (t) => {
      for (const k of stale) delete t.carts[k];
      t.carts[cart.uuid] = cart as unknown as CartRecord;
    });
    return cartView(app, request).cart(cart);
  });

  app.get<CP>('/carts/:cartUuid', { schema: { tags, summary: 'A cart with its items and totals', params: CartParams, response: { 200: CartSchema } } }, async (request) =>
    cartView(app, request).cart(cartOf(app, request, request.params.cartUuid)),
  );

  // Legacy replace/update: the fields they took (promo codes, gift cards) are not modelled, so they
  // answer the cart unchanged, after the same checks.
  for (const method of ['put', 'patch'] as const) {
    app[method]<CP>('/carts/:cartUuid', { schema: { tags, summary: 'Update a cart (legacy)', params: CartParams, response: { 200: CartSchema } } }, async (request) => {
      const cart = cartOf(app, request, request.params.cartUuid);
      assertOpen(cart);
      return cartView(app, request).cart(cart);
    });
  }

  app.delete<CP>('/carts/:cartUuid', { schema: { tags, summary: 'Delete a cart', params: CartParams, response: { 200: Type.Literal(true, { description: 'Deleted' }) } } }, async (request) => {
    const cart = cartOf(app, request, request.params.cartUuid);
    assertOpen(cart);
    await app.store.update(request.service.application, (t) => {
      delete t.carts[cart.uuid];
    });
    return true;
  });

  app.post<CP & { Body: Static<typeof ItemBody> | Static<typeof ItemBody>[] }>(
    '/carts/:cartUuid/items',
    { schema: { tags, summary: 'Add items (an array, or one object); answers the first item added', params: CartParams, body: Type.Union([Type.Array(ItemBody, { minItems: 1 }), ItemBody]), response: { 200: CartItemSchema } } },
    async (request) => {
      const cart = cartOf(app, request, request.params.cartUuid);
      assertOpen(cart);
      const inputs = (Array.isArray(request.body) ? request.body : [request.body]) as ItemInput[];
      if (cart.items.length + inputs.length > MAX_ITEMS) throw errors.validation(`A cart holds at most ${MAX_ITEMS} items`);
      // Every item is checked before any is written: a refused request changes nothing.
      const added: CartItemRecord[] = [];
      const at = app.now(request.service.application);
      inputs.forEach((input, i) => added.push({ uuid: randomUUID(), created_at: at.toISOString(), ...checkItem(app, cart, input, i, added, at) }));
      await save(request, cart.uuid, (c) => {
        c.items = [...c.items, ...added];
      });
      return cartView(app, request).item(added[0] as CartItemRecord);
    },
  );

  app.delete<IP>('/carts/:cartUuid/items/:cartItemUuid', { schema: { tags, summary: 'Remove an item', params: ItemParams } }, async (request, reply) => {
    const cart = cartOf(app, request, request.params.cartUuid);
    assertOpen(cart);
    if (!cart.items.some((x) => x.uuid === request.params.cartItemUuid)) throw errors.notFound(`Cart item ${clip(request.params.cartItemUuid)} does not exist`);
    await save(request, cart.uuid, (c) => {
      c.items = c.items.filter((x) => x.uuid !== request.params.cartItemUuid);
    });
    return reply.code(204).send();
  });

  app.get<CP>('/carts/:cartUuid/order-info', { schema: { tags, summary: 'The order made from a cart', params: CartParams, response: { 200: OrderInfoSchema } } }, async (request) => {
    const cart = cartOf(app, request, request.params.cartUuid);
    const order = cart.order_uuid ? (app.store.tenant(request.service.application).orders[cart.order_uuid] as unknown as Order | undefined) : undefined;
    if (!order) throw errors.notFound('Cart does not have an associated order');
    return { order_uuid: order.uuid, payment: { paid: order.paid, status: order.paid ? 'paid' : 'created' } };
  });
}
