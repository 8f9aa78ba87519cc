import type { FastifyInstance, FastifyRequest } from 'fastify';
import { clip, errors } from '../http/errors.js';
import { findActivity } from '../catalog/activities.routes.js';
import { toPrice, type Price } from '../catalog/money.js';
import { dayState, decodeProductId, findProduct, openSlots } from '../catalog/schedule.js';
import { tr } from '../catalog/text.js';
import type { ActivityRecord, HolderRecord, OptionRecord } from '../seed/types.js';
import type { Cart, CartItemRecord } from './records.js';

export const ITEM_TYPES = ['musement', 'musement-realtime', 'musement-giftbox', 'musement-gift'];
export const MAX_ITEMS = 100;

export interface ItemInput {
  type?: unknown;
  product_identifier?: unknown;
  quantity?: unknown;
  language?: unknown;
  pickup?: unknown;
}

export interface Resolved {
  activity: ActivityRecord;
  option: OptionRecord;
  holder: HolderRecord;
}

/** The catalog entries a cart item points at (its product id was checked when it was added). */
export function resolve(app: FastifyInstance, item: Pick<CartItemRecord, 'activity_uuid' | 'feature_code' | 'holder_code'>): Resolved {
  const activity = app.catalog.activityByUuid.get(item.activity_uuid);
  const option = activity?.booking.options.find((o) => o.feature_code === item.feature_code);
  const holder = option?.holders.find((h) => h.code === item.holder_code);
  if (!activity || !option || !holder) throw errors.notFound(`Product of activity ${item.activity_uuid} no longer exists`);
  return { activity, option, holder };
}

const bad = (i: number, message: string) => errors.validation(`items[${i}]: ${message}`);

/** Checks one item to add against the catalog and the cart; throws the reference's errors. */
export function checkItem(app: FastifyInstance, cart: Cart, input: ItemInput, i: number, pending: CartItemRecord[], now: Date): Omit<CartItemRecord, 'uuid' | 'created_at'> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw bad(i, 'must be an object');
  const type = input.type === undefined ? 'musement' : input.type;
  if (typeof type !== 'string' || !ITEM_TYPES.includes(type)) throw errors.outsideList('body', `items.${i}.type`, `items[${i}]: "type" must be one of ${ITEM_TYPES.join(', ')}`);
  if (typeof input.product_identifier !== 'string' || input.product_identifier === '') throw bad(i, '"product_identifier" is required: a product_id from GET /activities/{uuid}/dates/{day}');
  const quantity = typeof input.quantity === 'string' && /^\d+$/.test(input.quantity) ? Number(input.quantity) : input.quantity;
  if (typeof quantity !== 'number' || !Number.isInteger(quantity) || quantity < 1) throw bad(i, '"quantity" must be an integer greater than 0');
  const ref = decodeProductId(input.product_identifier);
  if (!ref) throw bad(i, `"product_identifier" ${clip(input.product_identifier)} is not a product of this catalog`);
  const activity = findActivity(app, ref.activityUuid);
  const product = findProduct(activity, ref);
  if (!product) throw bad(i, `"product_identifier" ${input.product_identifier} is not a product of activity ${activity.uuid}`);
  const today = now.toISOString().slice(0, 10);
  const state = dayState(activity, ref.day, today);
  if (state === 'unavailable') throw errors.dateUnavailable(ref.day);
  if (state === 'closed' || !openSlots(activity, product.option, ref.day, now).includes(ref.time)) {
    throw bad(i, `product ${input.product_identifier} cannot be booked any more (${ref.day} ${ref.time || 'all day'})`);
  }
  const { holder } = product;
  const left = state === 'sold-out' ? 0 : activity.booking.availability;
  const taken = [...cart.items, ...pending]
    .filter((x) => x.activity_uuid === activity.uuid && x.day === ref.day && x.time === ref.time)
    .reduce((n, x) => n + x.quantity, 0);
  if (quantity < holder.min_buy || quantity > holder.max_buy) throw bad(i, `"quantity" must be between min_buy ${holder.min_buy} and max_buy ${holder.max_buy}`);
  if (quantity + taken > left) throw bad(i, `only ${Math.max(0, left - taken)} tickets left for ${ref.day} ${ref.time || 'all day'}`);
  let pickup: string | null = null;
  if (activity.booking.pickups.length) {
    if (typeof input.pickup !== 'string' || input.pickup === '') throw bad(i, '"pickup" is required for this activity (GET /activities/{uuid}/pickups)');
    if (!activity.booking.pickups.some((p) => p.uuid === input.pickup)) throw bad(i, `"pickup" ${clip(input.pickup)} is not a pickup of this activity`);
    pickup = input.pickup;
  }
  let language: string | null = null;
  if (activity.booking.languages.length) {
    if (typeof input.language !== 'string' || input.language === '') throw bad(i, `"language" is required: one of ${activity.booking.languages.join(', ')}`);
    if (!activity.booking.languages.includes(input.language)) throw bad(i, `"language" must be one of ${activity.booking.languages.join(', ')}`);
    language = input.language;
  }
  return {
    type, product_identifier: input.product_identifier, activity_uuid: activity.uuid, feature_code: ref.featureCode,
    holder_code: ref.holderCode, day: ref.day, time: ref.time, quantity, language, pickup, participants: null,
  };
}

interface Money {
  retail: number;
  original: number;
  fee: number;
}

/** Renders carts and cart items in the request's currency and language. */
export function cartView(app: FastifyInstance, request: FastifyRequest) {
  const ctx = app.activityBodies.context(request);
  const base = app.config.basePath === '/' ? '' : app.config.basePath;
  const price = (amount: number, currency: string): Price =>
    toPrice(amount, app.catalog.currencyByCode.get(currency) ?? ctx.currency, ctx.currency, ctx.locale);
  const languages = new Map(app.catalog.languages.map((l) => [l.code, l]));
  const converted = (amount: number, currency: string) => price(amount, currency).value;

  const item = (x: CartItemRecord) => {
    const { activity, option, holder } = resolve(app, x);
    const cur = activity.supplier_currency;
    const lang = languages.get(x.language ?? '');
    return {
      uuid: x.uuid,
      type: x.type,
      product_identifier: x.product_identifier,
      quantity: x.quantity,
      status: 'PREBOOK_OK',
      // Absent, not null, without a language: the vendor's schema has no null here (docs/api-and-fidelity.md, Fidelity).
      ...(x.language ? { language: { code: x.language, name: lang ? tr(lang.name, ctx.lang) : x.language } } : {}),
      pickup: x.pickup,
      is_gift_redeem: false,
      total_price: price(holder.retail_price * x.quantity, cur),
      total_price_without_service_fee: price((holder.retail_price - holder.service_fee) * x.quantity, cur),
      product: {
        id: x.product_identifier,
        type: x.type,
        title: tr(activity.title, ctx.lang),
        date: `${x.day}${x.time ? ` ${x.time}` : ''}`,
        activity_uuid: activity.uuid,
        api_url: `${base}/activities/${activity.uuid}`,
        cover_image_url: activity.cover_image_url,
        max_confirmation_time: activity.max_confirmation_time,
        price_tag: { price_feature: tr(option.name, ctx.lang), price_feature_code: option.feature_code, ticket_holder: tr(holder.name, ctx.lang), ticket_holder_code: holder.code, default: holder.default },
        min_buy: holder.min_buy,
        max_buy: holder.max_buy,
        original_retail_price: price(holder.original_retail_price, cur),
        retail_price: price(holder.retail_price, cur),
        service_fee: price(holder.service_fee, cur),
        discount_amount: price(holder.original_retail_price - holder.retail_price, cur),
        meeting_point: tr(activity.meeting_point, ctx.lang),
      },
    };
  };

  /** Totals add up in the request currency: each line converted, then summed. */
  const totals = (items: CartItemRecord[]) => {
    const sum: Money = { retail: 0, original: 0, fee: 0 };
    for (const x of items) {
      const { activity, holder } = resolve(app, x);
      const cur = activity.supplier_currency;
      sum.retail += converted(holder.retail_price * x.quantity, cur);
      sum.original += converted(holder.original_retail_price * x.quantity, cur);
      sum.fee += converted(holder.service_fee * x.quantity, cur);
    }
    const c = ctx.currency.code;
    return {
      full_price: price(sum.original, c),
      full_price_without_service_fee: price(sum.original - sum.fee, c),
      retail_price: price(sum.retail, c),
      retail_price_without_service_fee: price(sum.retail - sum.fee, c),
      service_fee: price(sum.fee, c),
      discount: price(sum.original - sum.retail, c),
      total_discount: price(sum.original - sum.retail, c),
    };
  };

  const cart = (c: Cart) => ({
    uuid: c.uuid,
    items: c.items.map(item),
    // No customer yet, and the codes and gift cards the mock does not model, are left out rather
    // than null: the vendor's schema types them string or object, without null.
    ...(c.customer ? { customer: { ...c.customer, extra_customer_data: c.extra_customer_data } } : {}),
    preferred_payment_gateway: null,
    ...totals(c.items),
  });
  const supplierPrice = (amount: number, currency: string): Price => {
    const c = app.catalog.currencyByCode.get(currency) ?? ctx.currency;
    return toPrice(amount, c, c, ctx.locale);
  };
  return { cart, item, totals, price, supplierPrice };
}
