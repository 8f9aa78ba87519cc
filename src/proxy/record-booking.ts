/**
 * An activity's booking rules (src/seed/types.ts BookingRules) from the answers that show them: the
 * day schedule (options, holders, timeslots, guide languages, availability), the dates list (which
 * weekdays run, which days are closed or sold out, how far ahead) and the pickups.
 */
import type { Currency } from '../seed/catalog.js';
import type { ActivityRecord, FormFieldRecord, HolderRecord, Lang, OptionRecord, PickupRecord } from '../seed/types.js';
import { addDays } from '../catalog/activity.render.js';
import { amount, arr, bool, int, isUuid, num, obj, str, text } from './record-map.js';

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;
const weekday = (day: string) => new Date(`${day}T00:00:00Z`).getUTCDay();
const daysBetween = (a: string, b: string) => Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000);

/**
 * GET /activities/{uuid}/dates/{day}: the options with their holders and prices, the timeslots,
 * languages and availability. `first`: no schedule of this activity was seen before (its options are
 * still the placeholder's), else options seen on other days stay.
 */
export function fromSchedule(a: ActivityRecord, answer: unknown, lang: Lang, currencies: ReadonlyMap<string, Currency>, first: boolean): ActivityRecord {
  const groups = arr(answer).flatMap((d) => arr(obj(d).groups)).map(obj);
  if (groups.length === 0) return a;
  const money = (v: unknown, d: number) => amount(v, a.supplier_currency, currencies, d);
  const times = new Set(first ? [] : a.booking.timeslots);
  let availability = 0;
  let languages: string[] = [];
  const options = groups.map((g): OptionRecord => {
    const prev = a.booking.options.find((o) => o.feature_code === g.feature_code);
    const holders = new Map<string, HolderRecord>();
    for (const slot of arr(g.slots).map(obj)) {
      if (typeof slot.time === 'string' && TIME.test(slot.time)) times.add(slot.time);
      availability = Math.max(availability, int(slot.availability, 0, 0));
      if (languages.length === 0) languages = arr(slot.languages).map((l) => obj(l).code).filter((c): c is string => typeof c === 'string' && c.length === 2);
      for (const p of arr(slot.products).map(obj)) {
        const code = str(p.holder_code, '');
        if (!code || holders.has(code)) continue;
        const before = prev?.holders.find((h) => h.code === code);
        const minBuy = int(p.min_buy, before?.min_buy ?? 1, 1);
        holders.set(code, {
          code, name: text(before?.name, lang, p.name), age_range: str(p.age_range, before?.age_range ?? ''), default: bool(p.default, before?.default ?? false),
          retail_price: money(p.retail_price, 0), original_retail_price: money(p.original_retail_price, 0), service_fee: money(p.service_fee, 0), merchant_price: money(p.merchant_price, before?.merchant_price ?? 0),
          min_buy: minBuy, max_buy: Math.max(minBuy, int(p.max_buy, before?.max_buy ?? 10, 1)),
        });
      }
    }
    return {
      feature_code: str(g.feature_code, prev?.feature_code ?? 'standard'), name: text(prev?.name, lang, g.name), description: text(prev?.description, lang, g.description),
      type: g.type === 'DAY-BASED' ? 'DAY-BASED' : 'TIME-BASED', default: bool(g.default, prev?.default ?? false), holders: holders.size ? [...holders.values()] : (prev?.holders ?? a.booking.options[0]!.holders),
    };
  });
  const kept = first ? [] : a.booking.options.filter((o) => !options.some((n) => n.feature_code === o.feature_code));
  return { ...a, booking: { ...a.booking, options: [...options, ...kept], timeslots: [...times].sort(), languages: languages.length ? languages : a.booking.languages, availability: availability > 0 ? availability : a.booking.availability } };
}

/**
 * GET /activities/{uuid}/dates from `from` to `to`: the weekdays it runs, days of those weekdays the
 * list leaves out (unavailable), sold-out days, and a horizon reaching its last day from `today`.
 */
export function fromDates(a: ActivityRecord, answer: unknown, from: string | undefined, to: string | undefined, today: string): ActivityRecord {
  const listed = arr(answer).map(obj).filter((d) => typeof d.day === 'string' && DAY.test(d.day));
  if (listed.length === 0) return a;
  const days = listed.map((d) => d.day as string).sort();
  const first = from && DAY.test(from) ? from : days[0]!;
  const last = days.at(-1)!;
  const runs = [...new Set(days.map(weekday))].sort();
  const shown = new Set(days);
  const missing: string[] = [];
  // Today's are left out: a day can drop from today's list by its cutoff time alone.
  for (let d = first > today ? first : addDays(today, 1); d <= last && missing.length < 1000; d = addDays(d, 1)) if (runs.includes(weekday(d)) && !shown.has(d)) missing.push(d);
  const soldOut = listed.filter((d) => d.sold_out === true).map((d) => d.day as string);
  const b = a.booking;
  const within = (d: string) => d >= first && d <= (to && DAY.test(to) ? to : last);
  return {
    ...a,
    booking: {
      ...b, weekdays: [...new Set([...runs, ...(b.weekdays.length === 7 ? [] : b.weekdays)])].sort(), horizon_days: Math.min(1000, Math.max(daysBetween(today, last), 0)),
      unavailable_dates: [...new Set([...b.unavailable_dates.filter((d) => !within(d)), ...missing])].sort(), sold_out_dates: [...new Set([...b.sold_out_dates.filter((d) => !within(d)), ...soldOut])].sort(),
    },
  };
}

/** GET /activities/{uuid}/pickups. */
export function fromPickups(a: ActivityRecord, answer: unknown): ActivityRecord {
  const pickups = arr(answer).map(obj).filter((p) => isUuid(p.uuid)).map((p): PickupRecord => ({ uuid: p.uuid as string, type: p.type === 'HOTEL' ? 'HOTEL' : 'PICKUP', name: str(p.name, ''), latitude: num(p.latitude, 0), longitude: num(p.longitude, 0) }));
  return { ...a, booking: { ...a.booking, pickups } };
}

/**
 * GET /activities/{uuid}/extra-customer-data/schema and participants-info/schema (`form`: the
 * JSON Schema of one person): the fields the cart will ask for. A 404 there (none) is not recorded.
 */
export function fromForm(a: ActivityRecord, form: unknown, kind: 'extra_customer_data' | 'participant_fields', lang: Lang): ActivityRecord {
  const f = obj(form);
  const required = new Set(arr(f.required).filter((r): r is string => typeof r === 'string'));
  const previous = a.booking[kind];
  const fields = Object.entries(obj(f.properties))
    .map(([name, v]) => [name, obj(v)] as const)
    .sort(([, x], [, y]) => num(x.propertyOrder, 0) - num(y.propertyOrder, 0))
    .map(([name, v]): FormFieldRecord => {
      const type = (['string', 'number', 'integer', 'boolean'] as const).find((t) => t === v.type) ?? 'string';
      const format = v.format === 'email' || v.format === 'date' ? v.format : undefined;
      const values = arr(v.enum).filter((e): e is string => typeof e === 'string');
      return { name, type, title: text(previous.find((p) => p.name === name)?.title, lang, v.title), required: required.has(name), ...(format ? { format } : {}), ...(values.length ? { enum: values } : {}) };
    });
  return fields.length ? { ...a, booking: { ...a.booking, [kind]: fields } } : a;
}

/** Before any day schedule was seen: one ticket at the activity's own prices, rather than the fixture default's. */
export function withoutSchedule(a: ActivityRecord): ActivityRecord {
  const holder: HolderRecord = { code: 'adult', name: { en: 'Adult' }, retail_price: a.retail_price, original_retail_price: a.original_retail_price, service_fee: a.service_fee, merchant_price: a.merchant_price, min_buy: 1, max_buy: 10, age_range: '', default: true };
  const option = a.booking.options[0]!;
  return { ...a, booking: { ...a.booking, options: [{ ...option, holders: [holder] }] } };
}
