/**
 * ISO 8601 durations (PnYnMnDTnHnMnS and PnW), as the admin clock, cutoff times, token lifetimes,
 * retry schedules, scenarios and refund periods write them. Strict on purpose: a typo in a scenario
 * file must fail its load, not silently mean zero.
 */
export interface Duration {
  /** -1 for a leading minus (an extension many tools accept: "-PT1H" moves backwards). */
  sign: 1 | -1;
  years: number;
  months: number;
  weeks: number;
  days: number;
  hours: number;
  minutes: number;
  seconds: number;
}

export class DurationError extends RangeError {
  constructor(input: string, why: string) {
    super(`Invalid ISO 8601 duration "${input}": ${why}`);
    this.name = 'DurationError';
  }
}

const NUM = String.raw`(\d+(?:[.,]\d+)?)`;
const DATE_PART = new RegExp(String.raw`^(?:${NUM}Y)?(?:${NUM}M)?(?:${NUM}D)?$`);
const TIME_PART = new RegExp(String.raw`^(?:${NUM}H)?(?:${NUM}M)?(?:${NUM}S)?$`);
const WEEKS = new RegExp(String.raw`^${NUM}W$`);

const MS = { second: 1000, minute: 60_000, hour: 3_600_000, day: 86_400_000, week: 604_800_000 };

/** Parses "P1DT2H", "PT0.5S", "P2W", "-PT30M"; throws DurationError on anything else. */
export function parseDuration(input: string): Duration {
  if (typeof input !== 'string' || input.length > 64) throw new DurationError(String(input), 'not a short string');
  let s = input.trim();
  let sign: 1 | -1 = 1;
  if (s.startsWith('-')) {
    sign = -1;
    s = s.slice(1);
  }
  if (!s.startsWith('P')) throw new DurationError(input, 'must start with P');
  s = s.slice(1);
  const d: Duration = { sign, years: 0, months: 0, weeks: 0, days: 0, hours: 0, minutes: 0, seconds: 0 };
  const w = WEEKS.exec(s);
  if (w) {
    d.weeks = num(w[1]);
    return d;
  }
  const [datePart = '', timePart, extra] = s.split('T');
  if (extra !== undefined) throw new DurationError(input, 'more than one T');
  const dm = DATE_PART.exec(datePart);
  if (!dm) throw new DurationError(input, 'expected nY nM nD before T (weeks only alone, as PnW)');
  const tm = timePart === undefined ? null : TIME_PART.exec(timePart);
  if (timePart !== undefined && (!tm || timePart === '')) {
    throw new DurationError(input, 'expected nH nM nS after T');
  }
  const parts = [...dm.slice(1), ...(tm ? tm.slice(1) : [])];
  const given = parts.filter((p) => p !== undefined);
  if (given.length === 0) throw new DurationError(input, 'no components');
  // ISO 8601 allows a fraction only on the last (smallest) component given.
  if (given.slice(0, -1).some((p) => /[.,]/.test(p))) {
    throw new DurationError(input, 'only the smallest component may have a fraction');
  }
  d.years = num(dm[1]);
  d.months = num(dm[2]);
  d.days = num(dm[3]);
  d.hours = num(tm?.[1]);
  d.minutes = num(tm?.[2]);
  d.seconds = num(tm?.[3]);
  return d;
}

/** Like parseDuration, but null instead of an exception (for validators that build their own message). */
export function tryParseDuration(input: string): Duration | null {
  try {
    return parseDuration(input);
  } catch {
    return null;
  }
}

function num(v: string | undefined): number {
  return v === undefined ? 0 : Number(v.replace(',', '.'));
}

/**
 * Adds a duration to an instant: years and months on the UTC calendar (Jan 31 + P1M = Feb 28/29,
 * clamped as most date libraries do), everything else as exact milliseconds (a day is 24 h).
 */
export function addDuration(at: Date, d: Duration): Date {
  const out = new Date(at.getTime());
  const months = d.sign * (d.years * 12 + d.months);
  if (months !== 0) {
    if (!Number.isInteger(months)) throw new RangeError('fractional years or months cannot be added to a date');
    const day = out.getUTCDate();
    out.setUTCDate(1);
    out.setUTCMonth(out.getUTCMonth() + months);
    const lastDay = new Date(Date.UTC(out.getUTCFullYear(), out.getUTCMonth() + 1, 0)).getUTCDate();
    out.setUTCDate(Math.min(day, lastDay));
  }
  return new Date(out.getTime() + fixedMs(d));
}

/**
 * The length in milliseconds. Years and months have no fixed length: with `from` they are measured
 * on the calendar from that instant; without it they are refused.
 */
export function durationToMs(d: Duration, from?: Date): number {
  if (d.years !== 0 || d.months !== 0) {
    if (!from) throw new RangeError('a duration with years or months has no fixed length without a start date');
    return addDuration(from, d).getTime() - from.getTime();
  }
  return fixedMs(d);
}

function fixedMs(d: Duration): number {
  const ms =
    d.weeks * MS.week + d.days * MS.day + d.hours * MS.hour + d.minutes * MS.minute + d.seconds * MS.second;
  return d.sign * Math.round(ms);
}

/**
 * Formats milliseconds the way the API writes remaining times, e.g. "P10DT22H26M37S", "PT30M",
 * "P0D" for zero; whole seconds, days as 24 h, negative values with a leading minus.
 */
export function formatDuration(ms: number): string {
  const sign = ms < 0 ? '-' : '';
  let s = Math.floor(Math.abs(ms) / 1000);
  const days = Math.floor(s / 86400);
  s -= days * 86400;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  const time = `${h ? `${h}H` : ''}${m ? `${m}M` : ''}${s ? `${s}S` : ''}`;
  if (!days && !time) return 'P0D';
  return `${sign}P${days ? `${days}D` : ''}${time ? `T${time}` : ''}`;
}
