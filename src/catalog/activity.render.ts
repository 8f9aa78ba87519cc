import type { Catalog, Currency } from '../seed/catalog.js';
import type { ActivityRecord, Lang } from '../seed/types.js';
import type { ActivityT } from './activities.schemas.js';
import { toPrice, type Price } from './money.js';
import { escapeHtml, slugify, toHtml, tr, trList } from './text.js';
import { renderCategory, renderCity, renderFlavour, renderMetadata, renderVenue } from './taxonomy.render.js';

/** What a rendering depends on besides the record: everything that varies per request. */
export interface RenderContext {
  /** Requested content language (two letters). */
  lang: string;
  /** Locale used to format money, e.g. it-IT. */
  locale: string;
  currency: Currency;
  authenticated: boolean;
  /** Today in YYYY-MM-DD (server clock), for is_available_today/tomorrow. */
  today: string;
}

const FLAGS = [
  'exclusive', 'best_price', 'must_see', 'top_seller', 'special_offer', 'last_chance',
  'likely_to_sell_out', 'sold_out', 'temporary', 'ticket', 'ticket_not_included', 'no_index',
] as const;

/** Whether the activity can be booked for a day, judged from its weekly rules (dates endpoints refine). */
export function runsOn(a: ActivityRecord, day: string): boolean {
  if (a.status !== 'ONLINE' || a.flags.sold_out) return false;
  if (a.booking_type === 'NO-CALENDAR-FIXED-END' || a.booking_type === 'NO-CALENDAR-FIXED-VALIDITY') {
    return !a.booking.valid_until || day <= a.booking.valid_until;
  }
  const weekday = new Date(`${day}T00:00:00Z`).getUTCDay();
  return a.booking.weekdays.includes(weekday) && !a.booking.unavailable_dates.includes(day) && !a.booking.sold_out_dates.includes(day);
}

export function addDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

/** The spec's Activity object for one record in one language, currency and authentication state. */
export function renderActivity(a: ActivityRecord, catalog: Catalog, ctx: RenderContext): ActivityT {
  const { lang } = ctx;
  const served: Lang = a.content_languages.includes(lang as Lang) ? (lang as Lang) : 'en';
  const from = catalog.currencyByCode.get(a.supplier_currency) ?? ctx.currency;
  const price = (amount: number): Price => toPrice(amount, from, ctx.currency, ctx.locale);
  const title = tr(a.title, served);
  const about = tr(a.about, served);
  const meetingPoint = tr(a.meeting_point, served);
  const slug = slugify(tr(a.title, 'en'));
  const city = catalog.cityById.get(a.city_id);
  const languageNames = new Map(catalog.languages.map((l) => [l.code, l]));
  const b = a.booking;
  const out: ActivityT = {
    uuid: a.uuid,
    title,
    slug,
    slug_id: `${slug}-${a.id}`,
    about,
    about_html: toHtml(about),
    about_markdown: about,
    description: tr(a.meta_description, served),
    meta_description: tr(a.meta_description, served),
    meta_title: tr(a.meta_title, served),
    highlights: trList(a.highlights, served),
    included: trList(a.included, served),
    not_included: trList(a.not_included, served),
    info: tr(a.info, served),
    meeting_point: meetingPoint,
    meeting_point_html: toHtml(meetingPoint),
    meeting_point_markdown: meetingPoint,
    emergency_phone_number: a.emergency_phone_number,
    operational_days: tr(a.operational_days, served),
    where_text: tr(a.where_text, served),
    cover_image_url: a.cover_image_url,
    latitude: a.latitude,
    longitude: a.longitude,
    automatically_translated: a.machine_translated.includes(served),
    translated: served === lang,
    booking_type: a.booking_type,
    daily: a.booking_type === 'CALENDAR-NO-TIMESLOTS',
    open: a.booking_type === 'NO-CALENDAR-FIXED-END' || a.booking_type === 'NO-CALENDAR-FIXED-VALIDITY',
    buy_multiplier: a.buy_multiplier,
    cutoff_time: a.cutoff_time,
    max_confirmation_time: a.max_confirmation_time,
    validity: a.validity,
    status: a.status,
    needs_voucher: a.needs_voucher,
    order_box_elements: [b.pickups.length > 0 ? 'tours-and-activities-with-pickup' : 'tours-and-activities'],
    has_extra_customer_data: b.extra_customer_data.length > 0,
    has_passenger_info: b.participant_fields.length > 0,
    has_multiple_options: b.options.length > 1,
    has_price_info_on_date: a.has_price_info_on_date,
    numbered_seats: a.numbered_seats,
    voucher_access_usage: a.voucher_access_usage,
    voucher_always_include_ours: a.voucher_always_include_ours,
    free_cancellation: a.free_cancellation,
    giftcard: a.giftcard,
    giftable: a.giftable,
    ...(Object.fromEntries(FLAGS.map((f) => [f, a.flags[f] === true])) as Record<(typeof FLAGS)[number], boolean>),
    is_available_today: runsOn(a, ctx.today),
    is_available_tomorrow: runsOn(a, addDays(ctx.today, 1)),
    discount: a.discount,
    green_fee_days: a.green_fee_days,
    included_hotel_night_number: a.included_hotel_night_number,
    relevance: a.relevance,
    relevance_venue: a.relevance_venue,
    partner_internal_code: a.partner_internal_code,
    retail_price: price(a.retail_price),
    original_retail_price: price(a.original_retail_price),
    original_retail_price_without_service_fee: price(a.original_retail_price - a.service_fee),
    retail_price_without_service_fee: price(a.retail_price - a.service_fee),
    service_fee: price(a.service_fee),
    supplier_currency: a.supplier_currency,
    reviews_aggregated_info: a.reviews_aggregated_info,
    reviews_avg: a.reviews_avg,
    reviews_number: a.reviews_number,
    categories: a.category_ids.flatMap((id) => {
      const c = catalog.categoryById.get(id);
      return c ? [renderCategory(c, served)] : [];
    }),
    city: city ? renderCity(city, catalog, served) : missingCity(a.city_id),
    venues: a.venue_ids.flatMap((id) => {
      const v = catalog.venueById.get(id);
      return v ? [renderVenue(v, served)] : [];
    }),
    features: metadata(catalog.features, a.feature_codes, served),
    food: metadata(catalog.food, a.food_codes, served),
    group_size: metadata(catalog.group_sizes, a.group_size_codes, served),
    services: metadata(catalog.services, a.service_codes, served),
    flavours: a.flavour_ids.flatMap((id) => {
      const f = catalog.flavourById.get(id);
      return f ? [renderFlavour(f, served)] : [];
    }),
    languages: b.languages.map((code) => {
      const l = languageNames.get(code);
      return { code, name: l ? tr(l.name, served) : code };
    }),
    supplier: { company_name: a.supplier.company_name, uuid: a.supplier.uuid },
    url: `https://www.example.com/${escapeHtml(slug)}-${a.id}/`,
    saves: 0,
    seller_gateway: { code: 'MOCK', name: 'mock-server' },
    verticals: [],
  };
  if (a.duration_range) out.duration_range = { ...a.duration_range };
  const duration = a.duration_range?.max ?? a.duration_range?.min;
  if (duration) out.duration = duration;
  if (a.child_retail_price !== null) out.child_retail_price = price(a.child_retail_price);
  if (ctx.authenticated) out.merchant_price = price(a.merchant_price);
  return out;
}

function metadata(list: Catalog['features'], codes: string[], lang: string) {
  return codes.flatMap((code) => {
    const m = list.find((x) => x.code === code);
    return m ? [renderMetadata(m, lang)] : [];
  });
}

function missingCity(id: number): ActivityT['city'] {
  return {
    id, code: '', name: '', slug: '', content: '', headline: '', meta_title: '', meta_description: '',
    country: { id: 0, iso_code: '', name: '' }, cover_image_url: '', latitude: 0, longitude: 0,
    time_zone: 'UTC', top: false, url: '', weight: 0,
  };
}
