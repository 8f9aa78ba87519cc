import { createGeneratorSync } from 'json-schema-faker';
import type { Random } from './random.js';
import type { ActivityRecord } from './types.js';

const FLAGS = ['exclusive', 'best_price', 'must_see', 'top_seller', 'special_offer', 'last_chance', 'likely_to_sell_out', 'temporary', 'ticket', 'ticket_not_included', 'no_index'];

/**
 * The catalog flags and the review spread of an activity, as a JSON Schema that json-schema-faker
 * fills: a flag is true one time in five; 4 and 5 stars are never empty, so every activity has
 * reviews and an average between 1 and 5.
 */
const NumbersSchema = {
  type: 'object',
  properties: {
    flags: {
      type: 'object',
      properties: Object.fromEntries(FLAGS.map((f) => [f, { enum: [false, false, false, false, true] }])),
      required: FLAGS,
    },
    reviews: {
      type: 'object',
      properties: {
        '1': { type: 'integer', minimum: 0, maximum: 3 },
        '2': { type: 'integer', minimum: 0, maximum: 5 },
        '3': { type: 'integer', minimum: 0, maximum: 15 },
        '4': { type: 'integer', minimum: 1, maximum: 60 },
        '5': { type: 'integer', minimum: 1, maximum: 120 },
      },
      required: ['1', '2', '3', '4', '5'],
    },
  },
  required: ['flags', 'reviews'],
};

export interface ActivityNumbers {
  flags: Record<string, boolean>;
  reviews_aggregated_info: ActivityRecord['reviews_aggregated_info'];
  reviews_number: number;
  reviews_avg: number;
}

/**
 * json-schema-faker costs ~60 µs a generated object (~0.5 ms cold), over half the build time of a
 * 10,000-activity catalog, so it fills a pool of at most POOL entries in one call, seeded from the
 * one random source. Activity i takes entry i % POOL; past the first POOL, a scale drawn from the
 * same source keeps review counts varied (the average of a spread does not change with it).
 */
const POOL = 64;

export function activityNumbers(random: Random, count: number): (i: number) => ActivityNumbers {
  const size = Math.max(1, Math.min(count, POOL));
  const jsf = createGeneratorSync({ seed: random.int(1, 2 ** 31 - 1) });
  const pool = jsf.generate({ type: 'array', minItems: size, maxItems: size, items: NumbersSchema }) as {
    flags: Record<string, boolean>;
    reviews: ActivityRecord['reviews_aggregated_info'];
  }[];
  return (i) => {
    const entry = pool[i % size]!;
    const scale = i < size ? 1 : random.int(1, 6);
    const r = entry.reviews;
    const reviews = { '1': r['1'] * scale, '2': r['2'] * scale, '3': r['3'] * scale, '4': r['4'] * scale, '5': r['5'] * scale };
    const n = reviews['1'] + reviews['2'] + reviews['3'] + reviews['4'] + reviews['5'];
    const stars = reviews['1'] + 2 * reviews['2'] + 3 * reviews['3'] + 4 * reviews['4'] + 5 * reviews['5'];
    return {
      flags: { ...entry.flags, sold_out: false, temporary: false },
      reviews_aggregated_info: reviews,
      reviews_number: n,
      reviews_avg: Math.round((stars / n) * 100) / 100,
    };
  };
}
