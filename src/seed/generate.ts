import type { Faker } from '@faker-js/faker';
import { activityNumbers } from './numbers.js';
import type { Random } from './random.js';
import { ABOUT, DAYS, EVERY_DAY, fill, HIGHLIGHTS, HOURS, INCLUDED, INFO, KINDS, MEETING, NOT_INCLUDED, SOME_DAYS, VARIANTS } from './texts.js';
import type { ActivityRecord, BookingType, CatalogData, HolderRecord, Lang, OptionRecord, Text, TextList } from './types.js';

const LANGS: Lang[] = ['en', 'it', 'de', 'fr', 'es'];
const TIMES = ['09:00', '10:30', '12:00', '14:00', '15:30', '17:00', '19:00', '21:00'];
const IMG = 'https://images.mock-server.test';

type Taxonomy = Omit<CatalogData, 'activities'>;
const money = (n: number) => Math.round(n * 100) / 100;

/** A text in the given languages from a per-language template. */
function text(langs: Lang[], make: (l: Lang) => string): Text {
  const out: Partial<Record<Lang, string>> = {};
  for (const l of langs) out[l] = make(l);
  return out as Text;
}
function textList(langs: Lang[], make: (l: Lang) => string[]): TextList {
  const out: Partial<Record<Lang, string[]>> = {};
  for (const l of langs) out[l] = make(l);
  return out as TextList;
}

function durationRange(random: Random, hours: number): { duration_range: ActivityRecord['duration_range']; validity: string } {
  const r = random.next();
  const h = `PT${hours}H`;
  if (r < 0.4) return { duration_range: { min: h, max: h }, validity: 'P0D' };
  if (r < 0.7) return { duration_range: { min: h, max: `PT${hours + 1}H` }, validity: 'P0D' };
  if (r < 0.75) return { duration_range: { max: h }, validity: 'P0D' };
  if (r < 0.8) return { duration_range: { min: h }, validity: 'P0D' };
  if (r < 0.83) return { duration_range: { min: 'P0D', max: 'P0D' }, validity: 'P0D' };
  if (r < 0.85) return { duration_range: { min: 'P0D', max: h }, validity: 'P0D' };
  return { duration_range: null, validity: random.pick(['P1D', 'P0D']) };
}

function holders(random: Random, base: number, discount: number): HolderRecord[] {
  const make = (code: string, name: Text, retail: number, age: string, isDefault: boolean): HolderRecord => {
    const retail_price = money(retail);
    return {
      code, name, age_range: age, default: isDefault, min_buy: 1, max_buy: random.pick([6, 10, 20]),
      retail_price,
      original_retail_price: discount > 0 ? money(retail_price / (1 - discount / 100)) : retail_price,
      service_fee: money(retail_price * 0.1),
      merchant_price: money(retail_price * 0.8),
    };
  };
  const list = [make('adult', { en: 'Adult', it: 'Adulto', de: 'Erwachsener', fr: 'Adulte', es: 'Adulto' }, base, '18-99', true)];
  if (random.chance(0.6)) list.push(make('child', { en: 'Child', it: 'Bambino', de: 'Kind', fr: 'Enfant', es: 'Niño' }, base * 0.6, '4-17', false));
  if (random.chance(0.2)) list.push(make('senior', { en: 'Senior', it: 'Senior', de: 'Senior', fr: 'Senior', es: 'Mayor' }, base * 0.8, '65-99', false));
  return list;
}

/** Share of guided activities deliberately left without an English guide (times 0.6, see below). */
const FOREIGN_ONLY = 0.1;

/**
 * Guide/audio languages (what a cart item's `language` must be one of): one to three of LANGS,
 * English among them except for a deliberate minority of about 6%, so a partner's first booking
 * in English works almost everywhere and the "language must be one of" refusal still occurs.
 * One draw gives both the count (its integer part, exactly `random.int(1, 3)`) and the exception
 * (its fractional part, uniform and independent of the count): the draws are the ones made before
 * English was the norm, so every other field of a seed's catalog is unchanged. A draw without
 * English (3 in 5) gets English in place of its first language unless it is the exception.
 */
function guideLanguages(random: Random): Lang[] {
  const r = random.next() * 3;
  const drawn = random.sample(LANGS, 1 + Math.floor(r));
  const foreignOnly = r - Math.floor(r) < FOREIGN_ONLY;
  return drawn.includes('en') || foreignOnly ? drawn : ['en', ...drawn.slice(1)];
}

/** One or two distinct mates, without shuffling the whole city. */
function bundleOf(random: Random, mates: ActivityRecord[]): string[] {
  const first = random.int(0, mates.length - 1);
  if (mates.length === 1 || random.chance(0.5)) return [mates[first]!.uuid];
  const second = (first + random.int(1, mates.length - 1)) % mates.length;
  return [mates[Math.min(first, second)]!.uuid, mates[Math.max(first, second)]!.uuid];
}

/** `count` activities over the hand-written taxonomy, a pure function of the random source. */
export function generateActivities(random: Random, faker: Faker, tax: Taxonomy, count: number): ActivityRecord[] {
  const numbers = activityNumbers(random, count);
  const suppliers = Array.from({ length: Math.max(5, Math.ceil(count / 20)) }, () => ({ uuid: random.uuid(), company_name: faker.company.name() }));
  const out: ActivityRecord[] = [];
  for (let i = 0; i < count; i++) {
    const kind = random.pick(KINDS);
    const city = random.pick(tax.cities);
    const country = tax.countries.find((c) => c.id === city.country_id);
    const cityVenues = tax.venues.filter((v) => v.city_id === city.id);
    const venue = kind.venue && cityVenues.length ? random.pick(cityVenues) : null;
    const langs: Lang[] = random.chance(0.4) ? LANGS : ['en'];
    const variant = random.pick(VARIANTS);
    const place = (l: Lang) => (venue ? venue.name : city.name)[l] ?? (venue ? venue.name : city.name).en;
    const title = text(langs, (l) => `${fill(kind.title[l], { x: place(l) })} (${variant[l]})`);
    const hours = random.int(1, 8);
    const booking_type: BookingType =
      kind.code === 'pass' ? random.pick(['NO-CALENDAR-FIXED-VALIDITY', 'NO-CALENDAR-FIXED-END'] as const)
      : kind.code === 'daytrip' || kind.code === 'golf' ? 'CALENDAR-NO-TIMESLOTS'
      : random.chance(0.75) ? 'CALENDAR-TIMESLOTS' : 'CALENDAR-NO-TIMESLOTS';
    const discount = random.chance(0.3) ? random.pick([5, 10, 15, 20, 30]) : 0;
    const base = money(random.int(1500, 18000) / 100);
    const optionCount = random.chance(0.3) ? 2 : 1;
    const options: OptionRecord[] = Array.from({ length: optionCount }, (_, k) => ({
      feature_code: k === 0 ? 'standard' : 'premium',
      name: k === 0 ? { en: 'Standard', it: 'Standard', de: 'Standard', fr: 'Standard', es: 'Estándar' } : { en: 'Premium with guide', it: 'Premium con guida', de: 'Premium mit Guide', fr: 'Premium avec guide', es: 'Premium con guía' },
      description: k === 0 ? { en: 'Entry only' } : { en: 'Entry with a guided visit' },
      type: booking_type === 'CALENDAR-TIMESLOTS' ? 'TIME-BASED' : 'DAY-BASED',
      default: k === 0,
      holders: holders(random, base * (k === 0 ? 1 : 1.4), discount),
    }));
    const weekdays = random.chance(0.7) ? [0, 1, 2, 3, 4, 5, 6] : random.sample([0, 1, 2, 3, 4, 5, 6], random.int(3, 6));
    const guided = !['ticket', 'pass'].includes(kind.code);
    const pickups = (kind.code === 'daytrip' || kind.code === 'golf') && random.chance(0.3)
      ? Array.from({ length: random.int(2, 3) }, () => ({ uuid: random.uuid(), type: random.pick(['HOTEL', 'PICKUP'] as const), name: `${faker.location.street()} ${random.pick(['Hotel', 'Station', 'Square'])}`, latitude: city.latitude + (random.next() - 0.5) / 50, longitude: city.longitude + (random.next() - 0.5) / 50 }))
      : [];
    const needs_voucher = random.chance(0.25);
    const refund = random.next();
    const { flags, ...reviews } = numbers(i);
    const defaultHolder = options[0]!.holders[0]!;
    const child = options[0]!.holders.find((h) => h.code === 'child');
    const id = 200000 + i;
    const lat = venue?.latitude ?? city.latitude + (random.next() - 0.5) / 20;
    const lng = venue?.longitude ?? city.longitude + (random.next() - 0.5) / 20;
    const machine = langs.length > 1 ? LANGS.slice(1).filter(() => random.chance(0.5)) : [];
    const allDays = weekdays.length === 7;
    out.push({
      uuid: random.uuid(),
      id,
      status: random.chance(0.95) ? 'ONLINE' : random.pick(['DRAFT', 'REVIEW', 'ARCHIVED', 'UNAVAILABLE'] as const),
      booking_type,
      content_languages: langs,
      machine_translated: machine,
      title,
      about: text(langs, (l) => fill(ABOUT[l], { t: title[l] ?? title.en, d: fill(HOURS[l], { n: String(hours) }), c: city.name[l] ?? city.name.en })),
      meta_title: title,
      meta_description: text(langs, (l) => `${title[l] ?? title.en} - ${city.name[l] ?? city.name.en}`),
      highlights: textList(langs, (l) => HIGHLIGHTS.slice(0, 2 + (i % 3)).map((h) => h[l])),
      included: textList(langs, (l) => INCLUDED.slice(0, 1 + (i % 3)).map((h) => h[l])),
      not_included: textList(langs, (l) => NOT_INCLUDED.slice(0, 1 + (i % 2)).map((h) => h[l])),
      info: text(langs, (l) => INFO[l]),
      meeting_point: text(langs, (l) => fill(MEETING[l], { x: place(l) })),
      emergency_phone_number: `${country?.country_prefix ?? '+1'} ${random.int(100, 999)} ${random.int(1000000, 9999999)}`,
      operational_days: text(langs, (l) => fill(DAYS[l], { d: (allDays ? EVERY_DAY : SOME_DAYS)[l] })),
      where_text: text(langs, () => `<p>${venue?.address ?? city.name.en}</p>`),
      cover_image_url: `${IMG}/activities/${id}.jpg`,
      latitude: Math.round(lat * 1e6) / 1e6,
      longitude: Math.round(lng * 1e6) / 1e6,
      buy_multiplier: random.chance(0.05) ? 2 : 1,
      cutoff_time: random.pick(['PT0M', 'PT1H', 'PT2H', 'PT12H', 'P1D']),
      max_confirmation_time: needs_voucher ? random.pick(['PT24H', 'P2D']) : 'PT0S',
      ...(booking_type === 'NO-CALENDAR-FIXED-VALIDITY' ? { duration_range: null, validity: random.pick(['P30D', 'P1Y']) } : durationRange(random, hours)),
      needs_voucher,
      has_price_info_on_date: random.chance(0.7),
      numbered_seats: kind.code === 'show' && random.chance(0.3),
      voucher_access_usage: random.pick(['MOBILE', 'MOBILE', 'MOBILE', 'PRINTED', 'MIXED'] as const),
      voucher_always_include_ours: random.chance(0.1),
      free_cancellation: refund < 0.6,
      giftcard: false,
      giftable: random.chance(0.5),
      flags,
      discount,
      green_fee_days: kind.code === 'golf' ? random.int(1, 3) : 0,
      included_hotel_night_number: kind.code === 'daytrip' && random.chance(0.1) ? 1 : 0,
      relevance: random.int(0, 1000),
      relevance_venue: random.int(0, 1000),
      partner_internal_code: `SUP-${random.int(10000, 99999)}`,
      supplier_currency: country?.currency_code ?? 'USD',
      retail_price: defaultHolder.retail_price,
      original_retail_price: defaultHolder.original_retail_price,
      service_fee: defaultHolder.service_fee,
      merchant_price: defaultHolder.merchant_price,
      child_retail_price: child ? child.retail_price : null,
      ...reviews,
      category_ids: kind.categories,
      city_id: city.id,
      destination_city_ids: random.chance(0.1) ? tax.cities.filter((c) => c.country_id === city.country_id && c.id !== city.id).slice(0, 1).map((c) => c.id) : [],
      venue_ids: venue ? [venue.id] : [],
      feature_codes: random.sample(tax.features.map((f) => f.code), random.int(0, 3)),
      service_codes: random.sample(tax.services.map((f) => f.code), random.int(0, 2)),
      food_codes: kind.code === 'food' || kind.code === 'cooking' ? random.sample(tax.food.map((f) => f.code), 1) : [],
      group_size_codes: random.sample(tax.group_sizes.map((f) => f.code), 1),
      flavour_ids: random.sample(tax.flavours.map((f) => f.id), random.int(0, 2)),
      supplier: random.pick(suppliers),
      media: Array.from({ length: random.int(0, 4) }, (_, k) => ({ id: id * 10 + k + 1, type: k === 3 ? ('video' as const) : ('image' as const), title: title, url: `${IMG}/activities/${id}-${k + 1}.jpg`, is_cover: false })),
      bundle_uuids: [],
      booking: {
        options,
        timeslots: booking_type === 'CALENDAR-TIMESLOTS' ? random.sample(TIMES, random.int(1, 4)) : [],
        languages: guided ? guideLanguages(random) : [],
        weekdays,
        horizon_days: random.pick([90, 180, 365]),
        availability: random.int(5, 50),
        unavailable_dates: [],
        sold_out_dates: [],
        ...(booking_type === 'NO-CALENDAR-FIXED-END' ? { valid_until: '2027-12-31' } : {}),
        pickups,
        extra_customer_data: random.chance(0.1) ? [{ name: 'phone_number', type: 'string', title: { en: 'Mobile phone number', it: 'Numero di cellulare', de: 'Mobilnummer', fr: 'Numéro de portable', es: 'Número de móvil' }, required: true }] : [],
        participant_fields: random.chance(0.1) ? [
          { name: 'firstname', type: 'string', title: { en: 'First name', it: 'Nome', de: 'Vorname', fr: 'Prénom', es: 'Nombre' }, required: true },
          { name: 'lastname', type: 'string', title: { en: 'Last name', it: 'Cognome', de: 'Nachname', fr: 'Nom', es: 'Apellido' }, required: true },
        ] : [],
        refund_policies: refund < 0.3 ? [{ uuid: random.uuid(), period: 'P1D', type: 'PERCENTAGE', value: 100 }]
          : refund < 0.6 ? [{ uuid: random.uuid(), period: 'P3D', type: 'PERCENTAGE', value: 100 }, { uuid: random.uuid(), period: 'P1D', type: 'PERCENTAGE', value: 50 }]
          : [],
      },
    });
  }
  // Bundles pair ONLINE activities of the same city, chosen after all exist (grouped once: a scan
  // per activity made 10,000 activities quadratic).
  const online = new Map<number, ActivityRecord[]>();
  for (const a of out) if (a.status === 'ONLINE') online.set(a.city_id, [...(online.get(a.city_id) ?? []), a]);
  for (const a of out) {
    if (!random.chance(0.15)) continue;
    const mates = (online.get(a.city_id) ?? []).filter((b) => b !== a);
    if (mates.length) a.bundle_uuids = bundleOf(random, mates);
  }
  return out;
}
