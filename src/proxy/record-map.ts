/**
 * The catalog's answers (the API's shapes) turned back into fixture records (src/seed/types.ts):
 * what `--record DIR` writes and `--fixtures DIR` loads. Every value is checked for the type and
 * range the fixture schema wants; one that does not fit keeps the previous or default value, so a
 * service that departs from its document still records a catalog that loads.
 */
import type { Currency } from '../seed/catalog.js';
import { ACTIVITY_STATUSES, BOOKING_TYPES, CONTENT_LANGUAGES, type ActivityRecord, type CategoryRecord, type CityRecord, type CountryRecord, type FlavourRecord, type Lang, type MetadataRecord, type Text, type TextList, type VenueRecord } from '../seed/types.js';
import { ACTIVITY_DEFAULTS } from '../seed/fixtures.js';

type Json = Record<string, unknown>;
export const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown, d: string): string => (typeof v === 'string' ? v : d);
export const num = (v: unknown, d: number, min = -Infinity, max = Infinity): number => (typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max ? v : d);
export const int = (v: unknown, d: number, min = -Infinity, max = Infinity): number => (Number.isInteger(v) ? num(v, d, min, max) : d);
export const bool = (v: unknown, d: boolean): boolean => (typeof v === 'boolean' ? v : d);
const oneOf = <T extends string>(v: unknown, list: readonly T[], d: T): T => ((list as readonly unknown[]).includes(v) ? (v as T) : d);
const DURATION = /^-?P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?$/;
const duration = (v: unknown, d: string) => (typeof v === 'string' && DURATION.test(v) ? v : d);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const isUuid = (v: unknown): v is string => typeof v === 'string' && UUID.test(v);

/** The language an answer was written in: the one asked for, when the service has it. */
export const langOf = (language: string | undefined): Lang => ((CONTENT_LANGUAGES as readonly string[]).includes(language ?? '') ? (language as Lang) : 'en');

/** A text with one language's value set; English is kept from an English answer, else filled with the first seen. */
export function text(prev: Text | undefined, lang: Lang, v: unknown): Text {
  const s = str(v, prev?.[lang] ?? '');
  return { ...prev, [lang]: s, en: lang === 'en' ? s : (prev?.en ?? s) } as Text;
}
function textList(prev: TextList | undefined, lang: Lang, v: unknown): TextList {
  const list = arr(v).filter((x): x is string => typeof x === 'string');
  return { ...prev, [lang]: list, en: lang === 'en' ? list : (prev?.en ?? list) } as TextList;
}

/** An amount back in the supplier's currency from a Price in the request's (fixed rates of currencies.json). */
export function amount(price: unknown, supplier: string, currencies: ReadonlyMap<string, Currency>, d: number): number {
  const p = obj(price);
  const value = num(p.value, NaN);
  if (Number.isNaN(value)) return d;
  const from = currencies.get(str(p.currency, supplier));
  const to = currencies.get(supplier);
  if (!from || !to || from.code === to.code) return Math.max(0, value);
  const f = 10 ** to.decimals;
  return Math.max(0, Math.round((value / from.usd_rate) * to.usd_rate * f) / f);
}

const FLAGS = ['exclusive', 'best_price', 'must_see', 'top_seller', 'special_offer', 'last_chance', 'likely_to_sell_out', 'sold_out', 'temporary', 'ticket', 'ticket_not_included', 'no_index'];

export function country(c: Json, lang: Lang, prev?: CountryRecord): CountryRecord {
  const iso = str(c.iso_code, prev?.iso_code ?? 'XX');
  // A country only seen inside a city has no iso3char, prefix or currency: placeholders until GET /countries is read.
  return {
    id: int(c.id, prev?.id ?? 1, 1), iso_code: iso.length === 2 ? iso : 'XX', name: text(prev?.name, lang, c.name),
    iso3char: typeof c.iso3char === 'string' && c.iso3char.length === 3 ? c.iso3char : (prev?.iso3char ?? `${iso}X`.slice(0, 3).toUpperCase()),
    country_prefix: str(c.country_prefix, prev?.country_prefix ?? ''),
    currency_code: typeof c.currency_code === 'string' && c.currency_code.length === 3 ? c.currency_code : (prev?.currency_code ?? 'USD'),
  };
}

export function city(c: Json, lang: Lang, prev?: CityRecord): CityRecord {
  return {
    id: int(c.id, prev?.id ?? 1, 1), code: str(c.code, prev?.code ?? ''), slug: str(c.slug, prev?.slug ?? ''), name: text(prev?.name, lang, c.name),
    country_id: int(obj(c.country).id, prev?.country_id ?? 1, 1), latitude: num(c.latitude, prev?.latitude ?? 0, -90, 90), longitude: num(c.longitude, prev?.longitude ?? 0, -180, 180),
    time_zone: str(c.time_zone, prev?.time_zone ?? 'UTC'), top: bool(c.top, prev?.top ?? false), weight: int(c.weight, prev?.weight ?? 0),
    content: text(prev?.content, lang, c.content), headline: text(prev?.headline, lang, c.headline), meta_title: text(prev?.meta_title, lang, c.meta_title),
    meta_description: text(prev?.meta_description, lang, c.meta_description), cover_image_url: str(c.cover_image_url, prev?.cover_image_url ?? ''), url: str(c.url, prev?.url ?? ''),
  };
}

/** A venue as an activity shows it: its city is the activity's, its slug and relevance are not shown. */
export function venue(v: Json, lang: Lang, cityId: number, prev?: VenueRecord): VenueRecord {
  return {
    id: int(v.id, prev?.id ?? 1, 1), slug: prev?.slug ?? str(v.url, '').split('/').filter(Boolean).pop() ?? '', name: text(prev?.name, lang, v.name), city_id: prev?.city_id ?? cityId,
    address: str(v.address, prev?.address ?? ''), latitude: num(v.latitude, prev?.latitude ?? 0), longitude: num(v.longitude, prev?.longitude ?? 0),
    description: text(prev?.description, lang, v.description), headline: text(prev?.headline, lang, v.headline), meta_title: text(prev?.meta_title, lang, v.meta_title),
    meta_description: text(prev?.meta_description, lang, v.meta_description), cover_image_url: str(v.cover_image_url, prev?.cover_image_url ?? ''), url: str(v.url, prev?.url ?? ''), relevance: prev?.relevance ?? 0,
  };
}

export function category(c: Json, lang: Lang, prev?: CategoryRecord): CategoryRecord {
  const level = Number(c.level);
  const parent = c.parent_id === null ? null : int(c.parent_id, NaN, 1);
  return {
    id: int(c.id, prev?.id ?? 1, 1), code: str(c.code, prev?.code ?? ''), name: text(prev?.name, lang, c.name), level: Number.isInteger(level) && level >= 0 ? level : (prev?.level ?? 0),
    parent_id: parent === null || !Number.isNaN(parent) ? parent : (prev?.parent_id ?? null), cover_image_url: str(c.cover_image_url, prev?.cover_image_url ?? ''),
    event_image_url: str(c.event_image_url, prev?.event_image_url ?? ''), url: str(c.url, prev?.url ?? ''),
  };
}

export const flavour = (f: Json, lang: Lang, prev?: FlavourRecord): FlavourRecord => ({ id: int(f.id, prev?.id ?? 1, 1), slug: str(f.slug, prev?.slug ?? ''), name: text(prev?.name, lang, f.name), active: bool(f.active, prev?.active ?? true) });
export const metadata = (m: Json, lang: Lang, prev?: MetadataRecord): MetadataRecord => ({ code: str(m.code, prev?.code ?? ''), name: text(prev?.name, lang, m.name) });

/** The activity record an Activity answer stands for; its booking rules are the previous ones (record-booking.ts fills them). */
export function activity(a: Json, lang: Lang, currencies: ReadonlyMap<string, Currency>, prev?: ActivityRecord): ActivityRecord {
  const d = prev ?? ({ ...ACTIVITY_DEFAULTS, uuid: '', id: 1, title: { en: '' }, city_id: 1 } as ActivityRecord);
  const served: Lang = a.translated === false ? 'en' : lang;
  const supplier = typeof a.supplier_currency === 'string' && currencies.has(a.supplier_currency) ? a.supplier_currency : d.supplier_currency;
  const money = (v: unknown, fallback: number) => amount(v, supplier, currencies, fallback);
  const t = (k: 'title' | 'about' | 'meta_title' | 'meta_description' | 'info' | 'meeting_point' | 'operational_days' | 'where_text') => text(prev?.[k], served, a[k]);
  const tl = (k: 'highlights' | 'included' | 'not_included') => textList(prev?.[k], served, a[k]);
  const codes = (k: string) => arr(a[k]).map((x) => obj(x).code).filter((c): c is string => typeof c === 'string');
  const ids = (k: string) => arr(a[k]).map((x) => obj(x).id).filter((id): id is number => Number.isInteger(id) && (id as number) >= 1);
  const range = a.duration_range === null || a.duration_range === undefined ? null : obj(a.duration_range);
  const reviews = obj(a.reviews_aggregated_info);
  const star = (k: '1' | '2' | '3' | '4' | '5') => int(reviews[k], d.reviews_aggregated_info[k], 0);
  return {
    ...d,
    uuid: str(a.uuid, d.uuid).toLowerCase(), id: int(Number(/-(\d+)$/.exec(str(a.slug_id, ''))?.[1]), d.id, 1),
    status: oneOf(a.status, ACTIVITY_STATUSES, d.status), booking_type: oneOf(a.booking_type, BOOKING_TYPES, d.booking_type),
    content_languages: [...new Set([...(prev?.content_languages ?? []), served])], machine_translated: a.automatically_translated === true ? [...new Set([...(prev?.machine_translated ?? []), served])] : (prev?.machine_translated ?? []),
    title: t('title'), about: t('about'), meta_title: t('meta_title'), meta_description: t('meta_description'), info: t('info'), meeting_point: t('meeting_point'),
    operational_days: t('operational_days'), where_text: t('where_text'), highlights: tl('highlights'), included: tl('included'), not_included: tl('not_included'),
    emergency_phone_number: str(a.emergency_phone_number, d.emergency_phone_number), cover_image_url: str(a.cover_image_url, d.cover_image_url),
    latitude: num(a.latitude, d.latitude, -90, 90), longitude: num(a.longitude, d.longitude, -180, 180), buy_multiplier: int(a.buy_multiplier, d.buy_multiplier, 1),
    cutoff_time: duration(a.cutoff_time, d.cutoff_time), max_confirmation_time: duration(a.max_confirmation_time, d.max_confirmation_time), validity: duration(a.validity, d.validity),
    duration_range: range === null ? null : { ...(DURATION.test(str(range.min, '')) ? { min: range.min as string } : {}), ...(DURATION.test(str(range.max, '')) ? { max: range.max as string } : {}) },
    needs_voucher: bool(a.needs_voucher, d.needs_voucher), has_price_info_on_date: bool(a.has_price_info_on_date, d.has_price_info_on_date), numbered_seats: bool(a.numbered_seats, d.numbered_seats),
    voucher_access_usage: oneOf(a.voucher_access_usage, ['MOBILE', 'PRINTED', 'MIXED'] as const, d.voucher_access_usage), voucher_always_include_ours: bool(a.voucher_always_include_ours, d.voucher_always_include_ours),
    free_cancellation: bool(a.free_cancellation, d.free_cancellation), giftcard: bool(a.giftcard, d.giftcard), giftable: bool(a.giftable, d.giftable),
    flags: Object.fromEntries(FLAGS.filter((f) => a[f] === true).map((f) => [f, true])),
    discount: int(a.discount, d.discount, 0, 100), green_fee_days: int(a.green_fee_days, d.green_fee_days, 0), included_hotel_night_number: int(a.included_hotel_night_number, d.included_hotel_night_number, 0),
    relevance: int(a.relevance, d.relevance), relevance_venue: int(a.relevance_venue, d.relevance_venue), partner_internal_code: str(a.partner_internal_code, d.partner_internal_code), supplier_currency: supplier,
    retail_price: money(a.retail_price, d.retail_price), original_retail_price: money(a.original_retail_price, d.original_retail_price), service_fee: money(a.service_fee, d.service_fee),
    merchant_price: money(a.merchant_price, d.merchant_price), child_retail_price: a.child_retail_price === undefined ? null : money(a.child_retail_price, 0),
    reviews_aggregated_info: { '1': star('1'), '2': star('2'), '3': star('3'), '4': star('4'), '5': star('5') }, reviews_avg: num(a.reviews_avg, d.reviews_avg, 0, 5), reviews_number: int(a.reviews_number, d.reviews_number, 0),
    category_ids: ids('categories'), city_id: int(obj(a.city).id, d.city_id, 1), venue_ids: ids('venues'), flavour_ids: ids('flavours'),
    feature_codes: codes('features'), service_codes: codes('services'), food_codes: codes('food'), group_size_codes: codes('group_size'),
    supplier: { uuid: isUuid(obj(a.supplier).uuid) ? (obj(a.supplier).uuid as string) : d.supplier.uuid, company_name: str(obj(a.supplier).company_name, d.supplier.company_name) },
    // Other activities are recorded only when read: a bundle or destination that points at one not recorded would not load.
    destination_city_ids: prev?.destination_city_ids ?? [], bundle_uuids: [], media: prev?.media ?? [],
    booking: { ...d.booking, languages: codes('languages').filter((c) => c.length === 2) },
  };
}
