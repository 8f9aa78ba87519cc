import type { Catalog } from '../seed/catalog.js';
import type { ActivityRecord } from '../seed/types.js';
import { clip, errors } from '../http/errors.js';
import { durationToMs, parseDuration } from '../time/duration.js';
import { addDays, runsOn } from './activity.render.js';
import { tr } from './text.js';
import { SORT_ALIASES, SORT_KEYS, SORT_VALUES, type SortKey } from './sort.js';


/** A valid sort_by value as its key (either spelling) and whether '-' reversed it. */
export function parseSort(value: string): { key: SortKey; reversed: boolean } {
  const reversed = value.startsWith('-');
  const name = reversed ? value.slice(1) : value;
  return { key: SORT_ALIASES[name] ?? (name as SortKey), reversed };
}

/** The parsed, validated parameters of GET /activities. */
export interface SearchQuery {
  category_in: string[];
  country_in: string[];
  city_in: number[];
  venue_in: number[];
  feature_in: string[];
  flavour_in: number[];
  flavour_not_in: number[];
  service_in: string[];
  seller_in: string[];
  pickup_in: string[];
  available_language_in: string[];
  vertical_in: string[];
  temporary?: boolean;
  discounted?: boolean;
  /** [min, max] in the request currency, converted to USD by the caller. */
  price_usd?: [number, number];
  duration_ms?: [number, number];
  available_from?: string;
  available_to?: string;
  coordinates?: { lat: number; lng: number };
  distance_km?: number;
  text?: string;
  text_operator: 'AUTO' | 'AND' | 'OR';
  extend_content_fields: 'AUTO' | 'YES' | 'NO';
  extend_other_languages: 'AUTO' | 'YES' | 'NO';
  zero_terms_query: 'NONE' | 'ALL';
  fuzziness_level: 'AUTO' | 'LEVEL-0' | 'LEVEL-1' | 'LEVEL-2';
  preferred_seller_code?: string;
  preferred_seller_boost: number;
  sort_by: string[];
}

/** Splits comma-separated values, accepting repeated parameters too (x=a,b&x=c). */
export function listParam(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
}

/** A list of integer ids, 400 naming the parameter on anything else. */
export function idList(name: string, v: string | string[] | undefined): number[] {
  return listParam(v).map((s) => {
    const n = Number(s);
    if (!Number.isInteger(n)) throw errors.validation(`querystring "${name}" items must be integer ids, got "${clip(s)}"`);
    return n;
  });
}

/** Parses "lat,lng" (400 naming the parameter when malformed). */
export function parseCoordinates(v: string | undefined): { lat: number; lng: number } | undefined {
  if (v === undefined) return undefined;
  const [lat, lng, ...rest] = v.split(',').map((s) => Number(s.trim()));
  if (rest.length || lat === undefined || lng === undefined || !Number.isFinite(lat) || !Number.isFinite(lng) || Math.abs(lat) > 90 || Math.abs(lng) > 180) {
    throw errors.validation(`querystring "coordinates" must be "latitude,longitude", got "${clip(v)}"`);
  }
  return { lat, lng };
}

/** "min,max" of non-negative numbers (400 naming the parameter otherwise). */
export function parseRange(name: string, v: string | undefined): [number, number] | undefined {
  if (v === undefined) return undefined;
  const parts = v.split(',');
  const nums = parts.map((s) => (s.trim() === '' ? NaN : Number(s)));
  if (parts.length !== 2 || nums.some((n) => !Number.isFinite(n) || n < 0) || (nums[0] ?? 0) > (nums[1] ?? 0)) {
    throw errors.validation(`querystring "${name}" must be "min,max" with 0 <= min <= max, got "${clip(v)}"`);
  }
  return [nums[0] ?? 0, nums[1] ?? 0];
}

/** "PT1H,PT3H": a duration range (either side may be empty). */
export function parseDurationRange(v: string | undefined): [number, number] | undefined {
  if (v === undefined) return undefined;
  const [min = '', max = '', ...rest] = v.split(',');
  try {
    if (rest.length) throw new Error('too many values');
    return [min ? durationToMs(parseDuration(min)) : 0, max ? durationToMs(parseDuration(max)) : Infinity];
  } catch {
    throw errors.validation(`querystring "duration_range" must be "min,max" ISO 8601 durations such as PT1H,PT3H, got "${clip(v)}"`);
  }
}

/** Parses "50KM" / "30M" (miles) into kilometres. */
export function parseDistanceKm(v: string): number {
  const n = Number.parseInt(v, 10);
  return v.toUpperCase().endsWith('KM') ? n : n * 1.609344;
}

export function distanceKm(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLng = (b.lng - a.lng) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLng / 2) ** 2;
  return 12742 * Math.asin(Math.sqrt(h));
}

/** Checks sort_by values (the same set on every activity listing), 400 naming the first unknown one. */
export function validateSort(values: string[], hasCoordinates: boolean): void {
  for (const v of values) {
    if (!SORT_VALUES.includes(v)) {
      throw errors.outsideList('querystring', 'sort_by', `querystring "sort_by" has unknown value "${clip(v)}": one of ${SORT_KEYS.join(', ')} (or venue-relevance etc.), each also with - in front`);
    }
    if (parseSort(v).key === 'distance' && !hasCoordinates) throw errors.validation('querystring "sort_by" distance needs "coordinates"');
  }
}

export const usdPrice = (catalog: Catalog, a: ActivityRecord) => a.retail_price / (catalog.currencyByCode.get(a.supplier_currency)?.usd_rate ?? 1);

/** What a sort key orders by (ascending); distance is from `at`. */
export function sortKey(catalog: Catalog, key: SortKey, at: { lat: number; lng: number } | undefined): (a: ActivityRecord) => number {
  switch (key) {
    case 'price':
      return (a) => usdPrice(catalog, a);
    case 'rating':
      return (a) => a.reviews_avg;
    case 'relevance-venue':
      return (a) => a.relevance_venue;
    case 'relevance-external':
      // The external engine's score is not public: a stable stand-in built from popularity.
      return (a) => a.reviews_number * a.reviews_avg;
    case 'distance':
      return (a) => distanceKm(at ?? { lat: 0, lng: 0 }, { lat: a.latitude, lng: a.longitude });
    default:
      return (a) => a.relevance;
  }
}

const activityDuration = (a: ActivityRecord): [number, number] | null => {
  try {
    const r = a.duration_range;
    if (!r) return null;
    return [r.min ? durationToMs(parseDuration(r.min)) : 0, r.max ? durationToMs(parseDuration(r.max)) : Infinity];
  } catch {
    return null;
  }
};

/** Every filter except text; facets count over this. */
function matches(catalog: Catalog, a: ActivityRecord, q: SearchQuery, categoryIds: Set<number>): boolean {
  const anyIn = <T>(wanted: T[], have: T[]) => wanted.length === 0 || have.some((h) => wanted.includes(h));
  if (q.category_in.length && !a.category_ids.some((id) => categoryIds.has(id))) return false;
  if (q.city_in.length && !anyIn(q.city_in, [a.city_id, ...a.destination_city_ids])) return false;
  if (q.country_in.length) {
    const country = catalog.countryById.get(catalog.cityById.get(a.city_id)?.country_id ?? -1);
    if (!country || !q.country_in.includes(country.iso_code.toUpperCase())) return false;
  }
  if (!anyIn(q.venue_in, a.venue_ids) || !anyIn(q.feature_in, a.feature_codes) || !anyIn(q.flavour_in, a.flavour_ids)) return false;
  if (q.flavour_not_in.some((f) => a.flavour_ids.includes(f))) return false;
  if (!anyIn(q.service_in, a.service_codes) || !anyIn(q.seller_in, [a.supplier.uuid])) return false;
  if (!anyIn(q.pickup_in, a.booking.pickups.map((p) => p.uuid)) || !anyIn(q.available_language_in, a.booking.languages)) return false;
  if (q.temporary !== undefined && (a.flags.temporary === true) !== q.temporary) return false;
  if (q.discounted !== undefined && a.discount > 0 !== q.discounted) return false;
  if (q.price_usd) {
    const p = usdPrice(catalog, a);
    if (p < q.price_usd[0] - 0.005 || p > q.price_usd[1] + 0.005) return false;
  }
  if (q.duration_ms) {
    const d = activityDuration(a);
    if (!d || d[1] < q.duration_ms[0] || d[0] > q.duration_ms[1]) return false;
  }
  if (q.coordinates && q.distance_km !== undefined && distanceKm(q.coordinates, { lat: a.latitude, lng: a.longitude }) > q.distance_km) return false;
  if (q.available_from || q.available_to) {
    const from = q.available_from ?? q.available_to ?? '';
    const to = q.available_to ?? addDays(from, 30);
    let ok = false;
    for (let day = from, n = 0; day <= to && n < 366 && !ok; day = addDays(day, 1), n++) ok = runsOn(a, day);
    if (!ok) return false;
  }
  return true;
}

/** Filters (everything but text) the ONLINE activities. */
export function filter(catalog: Catalog, online: ActivityRecord[], q: SearchQuery): ActivityRecord[] {
  const categoryIds = new Set(catalog.categories.filter((c) => q.category_in.includes(c.code) || q.vertical_in.includes(c.code)).map((c) => c.id));
  const withVerticals = { ...q, category_in: [...q.category_in, ...q.vertical_in] };
  return online.filter((a) => matches(catalog, a, withVerticals, categoryIds));
}

/** Filters, searches text and sorts; the catalog's order breaks ties, so results are stable. */
export function search(catalog: Catalog, online: ActivityRecord[], q: SearchQuery, lang: string): ActivityRecord[] {
  let found = filter(catalog, online, q);
  if (q.text !== undefined) found = textFilter(found, q, lang);
  const order = q.sort_by.length ? q.sort_by : ['-relevance'];
  const keys = order.map((v) => {
    const { key, reversed } = parseSort(v);
    return { fn: sortKey(catalog, key, q.coordinates), dir: reversed ? -1 : 1 };
  });
  const boost = (a: ActivityRecord) => (q.preferred_seller_code && a.supplier.uuid === q.preferred_seller_code ? 1 : 0);
  const index = new Map(online.map((a, i) => [a, i]));
  return found
    .map((a) => ({ a, b: boost(a), k: keys.map((k) => k.fn(a)) }))
    .sort((x, y) => {
      if (q.preferred_seller_boost > 0 && x.b !== y.b) return y.b - x.b;
      for (let i = 0; i < keys.length; i++) {
        const d = ((x.k[i] ?? 0) - (y.k[i] ?? 0)) * (keys[i]?.dir ?? 1);
        if (d !== 0) return d;
      }
      return (index.get(x.a) ?? 0) - (index.get(y.a) ?? 0);
    })
    .map((x) => x.a);
}

const STOP_WORDS = new Set(['the', 'a', 'an', 'of', 'in', 'and', 'il', 'la', 'di', 'der', 'die', 'das', 'le', 'les', 'el', 'los']);

/** Edit distance up to `max` (early exit), for fuzziness_level. */
function within(a: string, b: string, max: number): boolean {
  if (Math.abs(a.length - b.length) > max) return false;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    if (Math.min(...cur) > max) return false;
    prev = cur;
  }
  return (prev[b.length] ?? max + 1) <= max;
}

function textFilter(list: ActivityRecord[], q: SearchQuery, lang: string): ActivityRecord[] {
  const all = q.text!.toLowerCase().split(/\s+/).filter(Boolean);
  const words = all.filter((w) => !STOP_WORDS.has(w));
  if (words.length === 0) return all.length && q.zero_terms_query === 'NONE' ? [] : list;
  // Allowed typos per word, as Elasticsearch's fuzziness: AUTO grows with the word's length.
  const fuzz = (w: string) =>
    q.fuzziness_level === 'AUTO' ? (w.length > 5 ? 2 : w.length > 2 ? 1 : 0) : Number(q.fuzziness_level.slice(-1));
  const run = (content: boolean, otherLangs: boolean, op: 'AND' | 'OR') =>
    list.filter((a) => {
      const langs = otherLangs ? Object.keys(a.title) : [lang, 'en'];
      const hay = langs
        .flatMap((l) => [tr(a.title, l), ...(content ? [tr(a.about, l), tr(a.meta_description, l)] : [])])
        .join(' ')
        .toLowerCase();
      const tokens = hay.split(/[^\p{L}\p{N}]+/u);
      const hit = (w: string) => hay.includes(w) || (fuzz(w) > 0 && tokens.some((t) => within(w, t, fuzz(w))));
      return op === 'AND' ? words.every(hit) : words.some(hit);
    });
  const ops: ('AND' | 'OR')[] = q.text_operator === 'AUTO' ? ['AND', 'OR'] : [q.text_operator];
  const contents = q.extend_content_fields === 'AUTO' ? [false, true] : [q.extend_content_fields === 'YES'];
  const others = q.extend_other_languages === 'AUTO' ? [false, true] : [q.extend_other_languages === 'YES'];
  for (const op of ops) for (const c of contents) for (const o of others) {
    const found = run(c, o, op);
    if (found.length) return found;
  }
  return [];
}

