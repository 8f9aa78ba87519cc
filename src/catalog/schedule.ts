import type { ActivityRecord, HolderRecord, OptionRecord } from '../seed/types.js';
import { addDuration, parseDuration, type Duration } from '../time/duration.js';
import { addDays } from './activity.render.js';
import { Memo } from '../memo.js';

/**
 * Schedules derived from an activity's booking rules: which days are offered, what a day's slots
 * and products are, and product ids that encode where they came from so that a cart can find them.
 * Times are the activity's local wall-clock times; the mock compares them in UTC (see docs/limits.md).
 */

export interface ProductRef {
  activityUuid: string;
  featureCode: string;
  holderCode: string;
  day: string;
  /** "HH:MM", or "" for a day-based option. */
  time: string;
}

export function encodeProductId(p: ProductRef): string {
  return Buffer.from([p.activityUuid, p.featureCode, p.holderCode, p.day, p.time].join('|')).toString('base64url');
}

/** The reference a product id stands for, or null when it is not one of ours. */
export function decodeProductId(id: string): ProductRef | null {
  if (!/^[A-Za-z0-9_-]{16,400}$/.test(id)) return null;
  const parts = Buffer.from(id, 'base64url').toString('utf8').split('|');
  if (parts.length !== 5) return null;
  const [activityUuid = '', featureCode = '', holderCode = '', day = '', time = ''] = parts;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || !/^(\d{2}:\d{2})?$/.test(time)) return null;
  return { activityUuid, featureCode, holderCode, day, time };
}

const isOpen = (a: ActivityRecord) => a.booking_type === 'NO-CALENDAR-FIXED-END' || a.booking_type === 'NO-CALENDAR-FIXED-VALIDITY';

/** The start times of an option on a day: its timeslots, or one all-day slot. */
export function slotTimes(a: ActivityRecord, option: OptionRecord): string[] {
  return option.type === 'TIME-BASED' && a.booking.timeslots.length > 0 ? a.booking.timeslots : [''];
}

// Parsed cutoff times (a handful of distinct values; parsing showed in the dates endpoint's profile).
const cutoffs = new Memo<Duration | null>(1000);

/** The earliest instant still bookable: now plus the activity's cutoff time (none if unreadable). */
export function bookableFrom(a: ActivityRecord, now: Date): Date {
  const cutoff = cutoffs.get(a.cutoff_time, () => {
    try {
      return parseDuration(a.cutoff_time);
    } catch {
      return null;
    }
  });
  if (!cutoff) return now;
  try {
    return addDuration(now, cutoff);
  } catch {
    return now;
  }
}

export type DayState = 'available' | 'sold-out' | 'unavailable' | 'closed';

/** Whether a day is offered at all, before looking at slots. */
export function dayState(a: ActivityRecord, day: string, today: string): DayState {
  const b = a.booking;
  if (b.unavailable_dates.includes(day)) return 'unavailable';
  if (day < today || day > addDays(today, b.horizon_days)) return 'closed';
  if (b.valid_until && day > b.valid_until) return 'closed';
  if (!isOpen(a) && !b.weekdays.includes(new Date(`${day}T00:00:00Z`).getUTCDay())) return 'closed';
  if (a.flags.sold_out || b.sold_out_dates.includes(day) || b.availability <= 0) return 'sold-out';
  return 'available';
}

/** Slots of an option on a day that start after the cutoff ("" = all day, bookable until its end). */
export function openSlots(a: ActivityRecord, option: OptionRecord, day: string, now: Date): string[] {
  const from = bookableFrom(a, now).getTime();
  return slotTimes(a, option).filter((time) => new Date(`${day}T${time || '23:59'}:00Z`).getTime() >= from);
}

export interface SlotProduct {
  option: OptionRecord;
  holder: HolderRecord;
  time: string;
  product_id: string;
}

/** Every product offered on a day after the cutoff, in option, slot and holder order. */
export function productsOn(a: ActivityRecord, day: string, now: Date): SlotProduct[] {
  const out: SlotProduct[] = [];
  for (const option of a.booking.options) {
    for (const time of openSlots(a, option, day, now)) {
      for (const holder of option.holders) {
        const product_id = encodeProductId({ activityUuid: a.uuid, featureCode: option.feature_code, holderCode: holder.code, day, time });
        out.push({ option, holder, time, product_id });
      }
    }
  }
  return out;
}

/** How many products productsOn() would list, without encoding their ids. */
export function openProductCount(a: ActivityRecord, day: string, now: Date): number {
  return a.booking.options.reduce((n, o) => n + openSlots(a, o, day, now).length * o.holders.length, 0);
}

/** Looks a product id up against the catalog rules; null when no such product is offered that day. */
export function findProduct(a: ActivityRecord, ref: ProductRef): { option: OptionRecord; holder: HolderRecord } | null {
  const option = a.booking.options.find((o) => o.feature_code === ref.featureCode);
  const holder = option?.holders.find((h) => h.code === ref.holderCode);
  if (!option || !holder) return null;
  if (!slotTimes(a, option).includes(ref.time)) return null;
  return { option, holder };
}

const days = new Memo<boolean>(10_000);

/** A real calendar day in YYYY-MM-DD (2026-02-31 is not). */
export function isDay(s: string): boolean {
  return days.get(s, () => {
    const d = new Date(`${s}T00:00:00Z`);
    return /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
  });
}
