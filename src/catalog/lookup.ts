import type { FastifyInstance } from 'fastify';
import { clip, errors } from '../http/errors.js';
import type { Catalog } from '../seed/catalog.js';
import type { ActivityRecord } from '../seed/types.js';
import { usdPrice } from './search.js';

/** A record by numeric id or 404 code 1400 naming what was missing. */
export function byId<T>(map: ReadonlyMap<number, T>, id: number, what: string): T {
  const found = map.get(id);
  if (found === undefined) throw errors.notFound(`${what} ${clip(id)} does not exist`);
  return found;
}

/** Published activities grouped by a key, built once per app: the catalog never changes. */
export function groupOnline(app: FastifyInstance, keys: (a: ActivityRecord) => number[]): Map<number, ActivityRecord[]> {
  const groups = new Map<number, ActivityRecord[]>();
  for (const a of app.catalog.activities) {
    if (a.status !== 'ONLINE') continue;
    for (const k of new Set(keys(a))) {
      const list = groups.get(k);
      if (list) list.push(a);
      else groups.set(k, [a]);
    }
  }
  return groups;
}

const byRelevance = (a: ActivityRecord, b: ActivityRecord) => b.relevance - a.relevance;

/** Sorts a copy for the place endpoints' sort_by (relevance by default, highest first). */
export function sortActivities(list: readonly ActivityRecord[], sortBy: string | undefined, catalog: Catalog): ActivityRecord[] {
  const copy = [...list];
  switch (sortBy) {
    case 'price':
      return copy.sort((a, b) => usdPrice(catalog, a) - usdPrice(catalog, b));
    case 'rating':
      return copy.sort((a, b) => b.reviews_avg - a.reviews_avg);
    case 'venue-relevance':
      return copy.sort((a, b) => b.relevance_venue - a.relevance_venue);
    default:
      return copy.sort(byRelevance);
  }
}
