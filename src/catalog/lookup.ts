import type { FastifyInstance } from 'fastify';
import { clip, errors } from '../http/errors.js';
import type { Catalog } from '../seed/catalog.js';
import type { ActivityRecord } from '../seed/types.js';
import { listParam, parseSort, sortKey, validateSort } from './search.js';
import type { SortKey } from './sort.js';

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

/** Keys a place list shows smallest first when asked without '-'; the others show best first. */
const ASCENDING: ReadonlySet<SortKey> = new Set(['price', 'distance']);

/**
 * The sort_by of the place activity lists (city, category, venue), validated: the values of GET
 * /activities (validateSort), one or more. Each bare value keeps the strategy these lists always had
 * (price cheapest first, relevance and rating best first); '-' reverses it. Absent: `fallback`.
 */
export function placeSort(sortBy: string[] | string | undefined, fallback: string): string[] {
  const values = listParam(sortBy);
  validateSort(values, false);
  return values.length ? values : [fallback];
}

/** Sorts a copy for the place endpoints' sort_by values (see placeSort); the catalog's order breaks ties. */
export function sortActivities(list: readonly ActivityRecord[], sortBy: string | readonly string[], catalog: Catalog): ActivityRecord[] {
  const keys = (typeof sortBy === 'string' ? [sortBy] : sortBy).map((v) => {
    const { key, reversed } = parseSort(v);
    return { fn: sortKey(catalog, key, undefined), dir: (ASCENDING.has(key) ? 1 : -1) * (reversed ? -1 : 1) };
  });
  return list
    .map((a, i) => ({ a, i, k: keys.map((k) => k.fn(a)) }))
    .sort((x, y) => {
      for (let j = 0; j < keys.length; j++) {
        const d = ((x.k[j] ?? 0) - (y.k[j] ?? 0)) * (keys[j]?.dir ?? 1);
        if (d !== 0) return d;
      }
      return x.i - y.i;
    })
    .map((x) => x.a);
}
