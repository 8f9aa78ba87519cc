import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { clip, errors } from '../http/errors.js';
import type { ActivityRecord, HolderRecord } from '../seed/types.js';
import { findActivity } from './activities.routes.js';
import { addDays, type RenderContext } from './activity.render.js';
import { toPrice } from './money.js';
import { listParam } from './search.js';
import { dayState, isDay, openProductCount, openSlots, productsOn } from './schedule.js';
import { PriceSchema } from './taxonomy.schemas.js';
import { tr } from './text.js';

const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD' });
const Params = Type.Object({ activityUuid: Type.String() });
const DayParams = Type.Object({ activityUuid: Type.String(), day: Day });
const tickets = Type.Optional(Type.Integer({ minimum: 1, description: 'only dates/products with at least this many tickets left' }));
const pickup = Type.Optional(Type.String({ description: 'pickup UUID; mandatory for activities with pickups' }));
const DatesQuery = Type.Object({
  date_from: Type.Optional(Day),
  date_to: Type.Optional(Day),
  pickup,
  tickets_number: tickets,
  discounts: Type.Optional(Type.Array(Type.String(), { description: 'discount percentages, comma-separated: adds retail_prices_with_custom_discount' })),
});
const DayQuery = Type.Object({ pickup, tickets_number: tickets });

const DateEntrySchema = Type.Object({
  day: Type.String(),
  sold_out: Type.Boolean(),
  retail_price: Type.Optional(PriceSchema),
  retail_price_without_service_fee: Type.Optional(PriceSchema),
  service_fee: Type.Optional(PriceSchema),
  original_retail_price: Type.Optional(PriceSchema),
  original_retail_price_without_service_fee: Type.Optional(PriceSchema),
  discount_amount: Type.Optional(PriceSchema),
  merchant_price: Type.Optional(PriceSchema),
  retail_prices_with_custom_discount: Type.Optional(Type.Array(PriceSchema)),
});

const ProductSchema = Type.Object({
  holder_code: Type.String(),
  holder_code_normalized: Type.String(),
  name: Type.String(),
  type: Type.String({ description: 'musement' }),
  default: Type.Boolean(),
  product_id: Type.String({ description: 'pass with type to POST /carts/{cartUuid}/items' }),
  min_buy: Type.Integer({ minimum: 1 }),
  max_buy: Type.Integer(),
  availability: Type.Integer({ minimum: 0 }),
  language_codes: Type.Array(Type.String()),
  age_range: Type.String(),
  activity_uuid: Type.String(),
  original_retail_price: PriceSchema,
  original_retail_price_without_service_fee: PriceSchema,
  discount_amount: PriceSchema,
  retail_price: PriceSchema,
  retail_price_without_service_fee: PriceSchema,
  service_fee: PriceSchema,
  merchant_price: Type.Optional(PriceSchema),
});
const ScheduleSchema = Type.Array(
  Type.Object({
    groups: Type.Array(
      Type.Object({
        feature_code: Type.String(),
        name: Type.String(),
        description: Type.String(),
        default: Type.Boolean(),
        type: Type.String(),
        slots: Type.Array(
          Type.Object({
            time: Type.String(),
            languages: Type.Array(Type.Object({ code: Type.String(), name: Type.String() })),
            tags: Type.Array(Type.Object({ code: Type.String(), name: Type.String() })),
            availability: Type.Integer({ minimum: 0 }),
            min_buy: Type.Integer({ minimum: 1 }),
            max_buy: Type.Integer(),
            products: Type.Array(ProductSchema),
          }),
        ),
      }),
    ),
  }),
);

/** Prices of one holder in the request's currency; merchant_price only when authenticated. */
function holderPrices(a: ActivityRecord, h: HolderRecord, app: FastifyInstance, ctx: RenderContext) {
  const from = app.catalog.currencyByCode.get(a.supplier_currency) ?? ctx.currency;
  const p = (v: number) => toPrice(v, from, ctx.currency, ctx.locale);
  return {
    original_retail_price: p(h.original_retail_price),
    original_retail_price_without_service_fee: p(h.original_retail_price - h.service_fee),
    discount_amount: p(h.original_retail_price - h.retail_price),
    retail_price: p(h.retail_price),
    retail_price_without_service_fee: p(h.retail_price - h.service_fee),
    service_fee: p(h.service_fee),
    ...(ctx.authenticated ? { merchant_price: p(h.merchant_price) } : {}),
  };
}

/** The pickup rule: mandatory for pickup activities, and it must be one of theirs. */
function checkPickup(a: ActivityRecord, pickupUuid: string | undefined, unknown: () => Error): void {
  if (a.booking.pickups.length === 0) return;
  if (!pickupUuid) throw errors.validation('querystring "pickup" is required: this activity has pickups (GET /activities/{activityUuid}/pickups)');
  if (!a.booking.pickups.some((p) => p.uuid === pickupUuid)) throw unknown();
}

export default async function datesRoutes(app: FastifyInstance) {
  const tags = ['dates'];
  const today = app.activityBodies.today;

  app.get<{ Params: Static<typeof Params>; Querystring: Static<typeof DatesQuery> }>(
    '/activities/:activityUuid/dates',
    { schema: { tags, summary: 'Available dates of an activity', params: Params, querystring: DatesQuery, response: { 200: Type.Array(DateEntrySchema) } } },
    async (request: FastifyRequest<{ Params: Static<typeof Params>; Querystring: Static<typeof DatesQuery> }>) => {
      const a = findActivity(app, request.params.activityUuid);
      const q = request.query;
      for (const name of ['date_from', 'date_to'] as const) {
        const v = q[name];
        if (v !== undefined && !isDay(v)) throw errors.validation(`querystring "${name}" is not a date: ${clip(v)}`);
      }
      const now = app.now(request.service.application);
      const t0 = today(request.service.application);
      const from = q.date_from ?? t0;
      const to = q.date_to ?? addDays(t0, a.booking.horizon_days);
      if (to < from || to < t0) throw errors.endBeforeStart();
      checkPickup(a, q.pickup, () => errors.validation(`querystring "pickup" ${clip(q.pickup)} is not a pickup of this activity`));
      const ctx = app.activityBodies.context(request);
      const discounts = listParam(q.discounts).map((d) => {
        const n = Number(d);
        if (d === '' || !Number.isFinite(n) || n < 0 || n > 100) throw errors.validation(`querystring "discounts" items must be percentages 0..100, got "${clip(d)}"`);
        return n;
      });
      const defaults = a.booking.options.find((o) => o.default) ?? a.booking.options[0];
      const cheapest = defaults?.holders.reduce<HolderRecord | undefined>((m, h) => (!m || h.retail_price < m.retail_price ? h : m), undefined);
      const out: Static<typeof DateEntrySchema>[] = [];
      const last = addDays(t0, Math.min(a.booking.horizon_days, 366));
      for (let day = from < t0 ? t0 : from; day <= to && day <= last; day = addDays(day, 1)) {
        const state = dayState(a, day, t0);
        if (state === 'closed' || state === 'unavailable') continue;
        if (!a.booking.options.some((o) => openSlots(a, o, day, now).length > 0)) continue;
        const soldOut = state === 'sold-out';
        if (q.tickets_number !== undefined && (soldOut || a.booking.availability < q.tickets_number)) continue;
        const prices = a.has_price_info_on_date && cheapest ? holderPrices(a, cheapest, app, ctx) : null;
        out.push({
          day, sold_out: soldOut, ...prices,
          ...(prices && discounts.length ? { retail_prices_with_custom_discount: discounts.map((d) => toPrice(prices.retail_price.value * (1 - d / 100), ctx.currency, ctx.currency, ctx.locale)) } : {}),
        });
      }
      return out;
    },
  );

  app.get<{ Params: Static<typeof DayParams>; Querystring: Static<typeof DayQuery> }>(
    '/activities/:activityUuid/dates/:day',
    { schema: { tags, summary: 'Options, timeslots and products of one day', params: DayParams, querystring: DayQuery, response: { 200: ScheduleSchema } } },
    (request, reply) => {
      const a = findActivity(app, request.params.activityUuid);
      const { day } = request.params;
      if (!isDay(day)) throw errors.validation(`params "day" is not a date: ${clip(day)}`);
      const q = request.query;
      checkPickup(a, q.pickup, () => errors.noSchedule(`Pickup ${clip(q.pickup)} is not available for this activity`));
      const state = dayState(a, day, today(request.service.application));
      if (state === 'unavailable') throw errors.dateUnavailable(day);
      if (state === 'closed') throw errors.noSchedule(`No schedule for activity ${a.uuid} on ${day}`);
      const availability = state === 'sold-out' ? 0 : a.booking.availability;
      if (q.tickets_number !== undefined && availability < q.tickets_number) {
        throw errors.noSchedule(`Fewer than ${q.tickets_number} tickets left on ${day}`);
      }
      const now = app.now(request.service.application);
      const open = openProductCount(a, day, now);
      if (open === 0) throw errors.noSchedule(`No schedule for activity ${a.uuid} on ${day} after the cutoff time`);
      // Within a day, slots only close as the clock passes their cutoff: the number of open products
      // tells which schedule this is, so the body (and its product ids) is built once per such state.
      const body = app.activityBodies.response(request, () => {
        const products = productsOn(a, day, now);
        const ctx = app.activityBodies.context(request);
        const lang = ctx.lang;
        const names = new Map(app.catalog.languages.map((l) => [l.code, l]));
        const languages = a.booking.languages.map((code) => ({ code, name: names.has(code) ? tr(names.get(code)!.name, lang) : code }));
        const groups = a.booking.options.flatMap((option) => {
          const mine = products.filter((p) => p.option === option);
          if (mine.length === 0) return [];
          const times = [...new Set(mine.map((p) => p.time))];
          return [{
            feature_code: option.feature_code,
            name: tr(option.name, lang),
            description: tr(option.description, lang),
            default: option.default,
            type: option.type,
            slots: times.map((time) => {
              const slotProducts = mine.filter((p) => p.time === time);
              return {
                time,
                languages,
                tags: [],
                availability,
                min_buy: Math.min(...slotProducts.map((p) => p.holder.min_buy)),
                max_buy: Math.min(availability, Math.max(...slotProducts.map((p) => p.holder.max_buy))),
                products: slotProducts.map(({ holder, product_id }) => ({
                  holder_code: holder.code,
                  holder_code_normalized: holder.code.toUpperCase(),
                  name: tr(holder.name, lang),
                  type: 'musement',
                  default: holder.default,
                  product_id,
                  min_buy: holder.min_buy,
                  max_buy: Math.min(holder.max_buy, availability),
                  availability,
                  language_codes: a.booking.languages,
                  age_range: holder.age_range,
                  activity_uuid: a.uuid,
                  ...holderPrices(a, holder, app, ctx),
                })),
              };
            }),
          }];
        });
        return JSON.stringify([{ groups }]);
      }, String(open));
      reply.type('application/json; charset=utf-8').send(body);
    },
  );
}
