import type { Catalog } from '../seed/catalog.js';
import type { ActivityRecord } from '../seed/types.js';
import { errors } from '../http/errors.js';
import { tr } from './text.js';

/** sort_by values the reference lists for GET /activities; '-' means descending. */
export const SORT_KEYS = [
  'relevance', 'distance', 'price', 'rating', 'relevance-venue', 'relevance-city', 'relevance-category', 'relevance-external',
] as const;

export interface SearchQuery {
  category_in: string[];
  country_in: string[];
  city_in: number[];
  text?: string;
  text_operator: 'AUTO' | 'AND' | 'OR';
  sort_by: string[];
  coordinates?: { lat: number; lng: number };
}

/** Splits comma-separated values, accepting repeated parameters too (x=a,b&x=c). */
export function listParam(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
}

/** Parses "lat,lng" (400 naming the parameter when malformed). */
export function parseCoordinates(v: string | undefined): { lat: number; lng: number } | undefined {
  if (v === undefined) return undefined;
  const [lat, lng, ...rest] = v.split(',').map((s) => Number(s.trim()));
  if (rest.length || lat === undefined || lng === undefined || !Number.isFinite(lat) || !Number.isFinite(lng) || Math.abs(lat) > 90 || Math.abs(lng) > 180) {
    throw errors.validation(`querystring "coordinates" must be "latitude,longitude", got "${v}"`);
  }
  return { lat, lng };
}

export function distanceKm(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLng = (b.lng - a.lng) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLng / 2) ** 2;
  return 12742 * Math.asin(Math.sqrt(h));
}

/** Checks sort_by values, 400 naming the first unknown one. */
export function validateSort(values: string[], hasCoordinates: boolean): void {
  for (const v of values) {
    const key = v.startsWith('-') ? v.slice(1) : v;
    if (!(SORT_KEYS as readonly string[]).includes(key)) {
      throw errors.validation(`querystring "sort_by" has unknown value "${v}": one of ${SORT_KEYS.flatMap((k) => [k, `-${k}`]).join(', ')}`);
    }
    if (key === 'distance' && !hasCoordinates) throw errors.validation('querystring "sort_by" distance needs "coordinates"');
  }
}

type Keyed = (a: ActivityRecord) => number;

function sortKey(catalog: Catalog, key: string, q: SearchQuery): Keyed {
  const usd = (a: ActivityRecord) => a.retail_price / (catalog.currencyByCode.get(a.supplier_currency)?.usd_rate ?? 1);
  switch (key) {
    case 'price':
      return usd;
    case 'rating':
      return (a) => a.reviews_avg;
    case 'relevance-venue':
      return (a) => a.relevance_venue;
    case 'relevance-external':
      // The external engine's score is not public: a stable stand-in built from popularity.
      return (a) => a.reviews_number * a.reviews_avg;
    case 'distance':
      return (a) => distanceKm(q.coordinates ?? { lat: 0, lng: 0 }, { lat: a.latitude, lng: a.longitude });
    default:
      return (a) => a.relevance;
  }
}

/** Filters and sorts ONLINE activities; the catalog's order breaks ties, so results are stable. */
export function search(catalog: Catalog, online: ActivityRecord[], q: SearchQuery, lang: string): ActivityRecord[] {
  const categoryIds = new Set(
    q.category_in.length ? catalog.categories.filter((c) => q.category_in.includes(c.code)).map((c) => c.id) : [],
  );
  const countries = new Set(q.country_in.map((c) => c.toUpperCase()));
  const cities = new Set(q.city_in);
  let found = online.filter((a) => {
    if (q.category_in.length && !a.category_ids.some((id) => categoryIds.has(id))) return false;
    if (cities.size && !cities.has(a.city_id) && !a.destination_city_ids.some((id) => cities.has(id))) return false;
    if (countries.size) {
      const city = catalog.cityById.get(a.city_id);
      const country = city && catalog.countryById.get(city.country_id);
      if (!country || !countries.has(country.iso_code.toUpperCase())) return false;
    }
    return true;
  });
  if (q.text) found = textFilter(found, q.text, q.text_operator, lang);
  const order = q.sort_by.length ? q.sort_by : ['-relevance'];
  const keys = order.map((v) => {
    const desc = v.startsWith('-');
    return { fn: sortKey(catalog, desc ? v.slice(1) : v, q), dir: desc ? -1 : 1 };
  });
  const index = new Map(online.map((a, i) => [a, i]));
  return found
    .map((a) => ({ a, k: keys.map((k) => k.fn(a)) }))
    .sort((x, y) => {
      for (let i = 0; i < keys.length; i++) {
        const d = ((x.k[i] ?? 0) - (y.k[i] ?? 0)) * (keys[i]?.dir ?? 1);
        if (d !== 0) return d;
      }
      return (index.get(x.a) ?? 0) - (index.get(y.a) ?? 0);
    })
    .map((x) => x.a);
}

function textFilter(list: ActivityRecord[], text: string, op: SearchQuery['text_operator'], lang: string): ActivityRecord[] {
  const words = text.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return list;
  const hay = (a: ActivityRecord) =>
    `${tr(a.title, lang)} ${tr(a.about, lang)} ${a.title.en} ${a.about.en}`.toLowerCase();
  const all = (a: ActivityRecord) => {
    const h = hay(a);
    return words.every((w) => h.includes(w));
  };
  const any = (a: ActivityRecord) => {
    const h = hay(a);
    return words.some((w) => h.includes(w));
  };
  if (op === 'AND') return list.filter(all);
  if (op === 'OR') return list.filter(any);
  const strict = list.filter(all);
  return strict.length ? strict : list.filter(any);
}
