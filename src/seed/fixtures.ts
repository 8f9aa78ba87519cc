import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { packageRoot } from '../paths.js';
import { ActivityS, FixtureFileS } from './schemas.js';
import type { ActivityRecord, CatalogData } from './types.js';

/** A bad fixture file: the CLI prints this one line (file, field, problem) and exits 2. */
export class FixtureError extends Error {
  readonly userFacing = true;
  constructor(message: string) {
    super(message);
    this.name = 'FixtureError';
  }
}

/** What a fixture activity gets for every field it leaves out, so hand-written files stay short. */
export const ACTIVITY_DEFAULTS: Omit<ActivityRecord, 'uuid' | 'id' | 'title' | 'city_id'> = {
  status: 'ONLINE', booking_type: 'CALENDAR-TIMESLOTS', content_languages: ['en'], machine_translated: [],
  about: { en: '' }, meta_title: { en: '' }, meta_description: { en: '' }, highlights: { en: [] }, included: { en: [] }, not_included: { en: [] },
  info: { en: '' }, meeting_point: { en: '' }, emergency_phone_number: '+39 06 0000000', operational_days: { en: '<p>Open every day</p>' }, where_text: { en: '' },
  cover_image_url: 'https://images.mock-server.test/activities/fixture.jpg', latitude: 41.9028, longitude: 12.4964,
  buy_multiplier: 1, cutoff_time: 'PT1H', max_confirmation_time: 'PT0S', duration_range: { min: 'PT2H', max: 'PT2H' }, validity: 'P0D',
  needs_voucher: false, has_price_info_on_date: true, numbered_seats: false, voucher_access_usage: 'MOBILE', voucher_always_include_ours: false,
  free_cancellation: false, giftcard: false, giftable: false, flags: {}, discount: 0, green_fee_days: 0, included_hotel_night_number: 0,
  relevance: 900, relevance_venue: 900, partner_internal_code: 'FIXTURE', supplier_currency: 'EUR',
  retail_price: 0, original_retail_price: 0, service_fee: 0, merchant_price: 0, child_retail_price: null,
  reviews_aggregated_info: { '1': 0, '2': 0, '3': 1, '4': 4, '5': 10 }, reviews_avg: 4.6, reviews_number: 15,
  category_ids: [], destination_city_ids: [], venue_ids: [], feature_codes: [], service_codes: [], food_codes: [], group_size_codes: [], flavour_ids: [],
  supplier: { uuid: 'f1f1f1f1-0000-4000-8000-000000000001', company_name: 'Mock Experiences Ltd' }, media: [], bundle_uuids: [],
  booking: {
    options: [{ feature_code: 'standard', name: { en: 'Standard' }, description: { en: 'Entry' }, type: 'TIME-BASED', default: true, holders: [{ code: 'adult', name: { en: 'Adult' }, retail_price: 30, original_retail_price: 30, service_fee: 3, merchant_price: 24, min_buy: 1, max_buy: 10, age_range: '18-99', default: true }] }],
    timeslots: ['10:00', '15:00'], languages: [], weekdays: [0, 1, 2, 3, 4, 5, 6], horizon_days: 365, availability: 50,
    unavailable_dates: [], sold_out_dates: [], pickups: [], extra_customer_data: [], participant_fields: [], refund_policies: [],
  },
};

type Lists = Omit<CatalogData, 'activities'> & { activities: Record<string, unknown>[] };
const LISTS = ['countries', 'cities', 'venues', 'categories', 'flavours', 'features', 'services', 'food', 'group_sizes', 'languages', 'activities'] as const;
/** Fixture files with loaders of their own (src/auth/clients.ts, merchant-tags.routes.ts). */
const OTHER_LOADERS = new Set(['clients.json', 'merchant-tags.json']);

const keyOf = (list: string, r: Record<string, unknown>) => String(list === 'activities' ? r.uuid : 'id' in r ? r.id : r.code);

/** JSON files of a fixture directory (and its catalog/ subfolder), in name order. */
function files(dir: string): string[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new FixtureError(`fixtures directory ${dir} does not exist`);
  const here = readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => join(dir, f));
  const sub = join(dir, 'catalog');
  return existsSync(sub) ? [...readdirSync(sub).filter((f) => f.endsWith('.json')).sort().map((f) => join(sub, f)), ...here] : here;
}

// ajv is loaded by Fastify anyway; typebox's own checker would add a fifth of a second to start-up.
const ajv = new Ajv({ allErrors: false, strict: false });
const validators = new Map<object, ValidateFunction>();

function firstError(schema: object, value: unknown): string | null {
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    validators.set(schema, validate);
  }
  if (validate(value)) return null;
  const e = validate.errors?.[0];
  if (!e) return '/ is invalid';
  const p = e.params as Record<string, unknown>;
  const detail = p.additionalProperty ? `: ${JSON.stringify([p.additionalProperty])}` : p.allowedValues ? `: ${JSON.stringify(p.allowedValues)}` : '';
  return `${e.instancePath || '/'} ${e.message}${detail}`;
}

/** Applies defaults to a fixture activity; nested booking fields merge one level deep. */
function withDefaults(a: Record<string, unknown>): Record<string, unknown> {
  const booking = { ...ACTIVITY_DEFAULTS.booking, ...(a.booking as object | undefined) } as ActivityRecord['booking'];
  const holder = booking.options.find((o) => o.default)?.holders.find((h) => h.default) ?? booking.options[0]?.holders[0];
  const prices = holder ? { retail_price: holder.retail_price, original_retail_price: holder.original_retail_price, service_fee: holder.service_fee, merchant_price: holder.merchant_price } : {};
  return { ...ACTIVITY_DEFAULTS, ...prices, meta_title: a.title, ...a, booking };
}

/**
 * Loads the built-in fixtures (files that are not catalog lists, such as currencies.json, are
 * skipped) and then the user's directory, whose records replace built-in ones with the same id.
 * Only the user's files are checked against the schemas here: compiling those validators is a
 * sixth of a second of every start, and the test suite checks the built-in files the same way.
 */
export function loadFixtures(builtinDir: string, userDir: string | null): Lists {
  const merged = new Map<string, Map<string, Record<string, unknown>>>(LISTS.map((l) => [l, new Map()]));
  for (const [dir, builtin] of [[builtinDir, true], ...(userDir ? [[userDir, false]] : [])] as [string, boolean][]) {
    for (const file of files(dir)) {
      const name = relative(packageRoot, file).startsWith('..') ? file : relative(packageRoot, file);
      let data: unknown;
      try {
        data = JSON.parse(readFileSync(file, 'utf8'));
      } catch (e) {
        throw new FixtureError(`${name}: not valid JSON (${(e as Error).message})`);
      }
      const isCatalog = typeof data === 'object' && data !== null && LISTS.some((l) => l in data);
      if (!isCatalog && (builtin || OTHER_LOADERS.has(basename(file)))) continue;
      const err = builtin ? null : firstError(FixtureFileS, data);
      if (err) throw new FixtureError(`${name}: ${err}`);
      const d = data as Record<string, Record<string, unknown>[] | undefined>;
      for (const list of LISTS) {
        (d[list] ?? []).forEach((record, i) => {
          const full = list === 'activities' ? withDefaults(record) : record;
          if (list === 'activities' && !builtin) {
            const e = firstError(ActivityS, full);
            if (e) throw new FixtureError(`${name}: /activities/${i}${e.startsWith('/ ') ? e.slice(1) : e}`);
          }
          merged.get(list)!.set(keyOf(list, full), full);
        });
      }
    }
  }
  const out = Object.fromEntries(LISTS.map((l) => [l, [...merged.get(l)!.values()]])) as unknown as Lists;
  checkReferences(out as unknown as CatalogData);
  return out;
}

/** Every id a record points at must exist, or the start fails naming the record. */
export function checkReferences(d: CatalogData): void {
  const has = (list: { id: number }[]) => new Set(list.map((r) => r.id));
  const countries = has(d.countries), cities = has(d.cities), categories = has(d.categories), venues = has(d.venues), flavours = has(d.flavours);
  const uuids = new Set(d.activities.map((a) => a.uuid));
  const fail = (what: string, ref: string) => {
    throw new FixtureError(`fixtures: ${what} refers to ${ref}, which does not exist`);
  };
  for (const c of d.cities) if (!countries.has(c.country_id)) fail(`city ${c.id}`, `country_id ${c.country_id}`);
  for (const v of d.venues) if (!cities.has(v.city_id)) fail(`venue ${v.id}`, `city_id ${v.city_id}`);
  for (const c of d.categories) if (c.parent_id !== null && !categories.has(c.parent_id)) fail(`category ${c.id}`, `parent_id ${c.parent_id}`);
  for (const a of d.activities) {
    const at = `activity ${a.uuid}`;
    if (!cities.has(a.city_id)) fail(at, `city_id ${a.city_id}`);
    for (const id of a.destination_city_ids) if (!cities.has(id)) fail(at, `destination city ${id}`);
    for (const id of a.category_ids) if (!categories.has(id)) fail(at, `category ${id}`);
    for (const id of a.venue_ids) if (!venues.has(id)) fail(at, `venue ${id}`);
    for (const id of a.flavour_ids) if (!flavours.has(id)) fail(at, `flavour ${id}`);
    for (const u of a.bundle_uuids) if (!uuids.has(u)) fail(at, `bundle activity ${u}`);
  }
}
