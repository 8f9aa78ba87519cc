import type { Currency } from '../seed/catalog.js';
import { Memo } from '../memo.js';

/** The API's Price object. */
export interface Price {
  currency: string;
  value: number;
  formatted_value: string;
  formatted_iso_value: string;
}

/** Rounds as money is: to the currency's minor units, halves away from zero. */
export function roundMoney(amount: number, decimals: number): number {
  const f = 10 ** decimals;
  // The epsilon absorbs binary noise such as 1.005 * 100 = 100.49999999999999.
  const r = Math.round(Math.abs(amount) * f + 1e-7) / f;
  return amount < 0 ? -r : r;
}

/** Converts with the fixed rates of fixtures/currencies.json (units per 1 USD), then rounds. */
export function convert(amount: number, from: Currency, to: Currency): number {
  if (from.code === to.code) return roundMoney(amount, to.decimals);
  return roundMoney((amount / from.usd_rate) * to.usd_rate, to.decimals);
}

const localFormats = new Map<string, Intl.NumberFormat>();
const isoFormats = new Map<string, Intl.NumberFormat>();

function localFormat(locale: string, c: Currency): Intl.NumberFormat {
  const key = `${locale}|${c.code}`;
  let f = localFormats.get(key);
  if (!f) {
    f = new Intl.NumberFormat(locale, { style: 'currency', currency: c.code, minimumFractionDigits: c.decimals, maximumFractionDigits: c.decimals });
    localFormats.set(key, f);
  }
  return f;
}

/** Compact form: narrow symbol, no grouping, dot decimals ("€1234.50"), the same in every locale. */
function isoFormat(c: Currency): Intl.NumberFormat {
  let f = isoFormats.get(c.code);
  if (!f) {
    f = new Intl.NumberFormat('en-US', {
      style: 'currency',
      currency: c.code,
      currencyDisplay: 'narrowSymbol',
      useGrouping: false,
      minimumFractionDigits: c.decimals,
      maximumFractionDigits: c.decimals,
    });
    isoFormats.set(c.code, f);
  }
  return f;
}

// Formatted amounts by locale, currency and value: Intl formatting was the largest cost of a cart
// or order answer, and a shop shows the same few amounts over and over. Starts over when full.
const formatted = new Memo<[string, string]>(100_000);

/** A Price in the request's currency and locale from an amount in the supplier's currency. */
export function toPrice(amount: number, from: Currency, to: Currency, locale: string): Price {
  const value = convert(amount, from, to);
  const f = formatted.get(`${locale}|${to.code}|${value}`, () => [localFormat(locale, to).format(value), isoFormat(to).format(value).replace(/\s/g, '')]);
  return { currency: to.code, value, formatted_value: f[0], formatted_iso_value: f[1] };
}
