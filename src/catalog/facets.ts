import type { Catalog } from '../seed/catalog.js';
import type { ActivityRecord } from '../seed/types.js';
import { clip, errors } from '../http/errors.js';
import { tr } from './text.js';

/** Facets include_facets can ask for, each counting the filtered activities per value. */
export const FACETS = ['category', 'city', 'country', 'venue', 'feature', 'flavour', 'service', 'available_language', 'temporary'] as const;

interface FacetValue {
  key: string;
  label: string;
  value: number;
  query_value: string;
}

export interface Facet {
  facet_type: 'TERMS';
  key: string;
  query_param: string;
  label: string;
  values: FacetValue[];
}

/** [key, label, query value] of each value an activity has for a facet. */
function valuesOf(catalog: Catalog, a: ActivityRecord, facet: string, lang: string): [string, string, string][] {
  const name = (list: { code: string; name: Record<string, string> & { en: string } }[], code: string) => tr(list.find((x) => x.code === code)?.name ?? { en: code }, lang);
  switch (facet) {
    case 'category':
      return a.category_ids.flatMap((id) => {
        const c = catalog.categoryById.get(id);
        return c ? [[c.code, tr(c.name, lang), c.code] as [string, string, string]] : [];
      });
    case 'city': {
      const c = catalog.cityById.get(a.city_id);
      return c ? [[String(c.id), tr(c.name, lang), String(c.id)]] : [];
    }
    case 'country': {
      const c = catalog.countryById.get(catalog.cityById.get(a.city_id)?.country_id ?? -1);
      return c ? [[c.iso_code, tr(c.name, lang), c.iso_code]] : [];
    }
    case 'venue':
      return a.venue_ids.flatMap((id) => {
        const v = catalog.venueById.get(id);
        return v ? [[String(v.id), tr(v.name, lang), String(v.id)] as [string, string, string]] : [];
      });
    case 'feature':
      return a.feature_codes.map((c) => [c, name(catalog.features, c), c]);
    case 'service':
      return a.service_codes.map((c) => [c, name(catalog.services, c), c]);
    case 'flavour':
      return a.flavour_ids.flatMap((id) => {
        const f = catalog.flavourById.get(id);
        return f ? [[String(f.id), tr(f.name, lang), String(f.id)] as [string, string, string]] : [];
      });
    case 'available_language':
      return a.booking.languages.map((c) => [c, name(catalog.languages, c), c]);
    default:
      return [[a.flags.temporary ? 'YES' : 'NO', a.flags.temporary ? 'YES' : 'NO', a.flags.temporary ? 'YES' : 'NO']];
  }
}

/** Counts per value over the matching activities, most frequent first. */
export function facets(catalog: Catalog, found: ActivityRecord[], wanted: string[], lang: string): Facet[] {
  const unknown = wanted.find((w) => !(FACETS as readonly string[]).includes(w));
  if (unknown !== undefined) throw errors.outsideList('querystring', 'include_facets', `querystring "include_facets" has unknown value "${clip(unknown)}": one of ${FACETS.join(', ')}`);
  return wanted.map((facet) => {
    const counts = new Map<string, FacetValue>();
    for (const a of found) {
      const seen = new Set<string>();
      for (const [key, label, query_value] of valuesOf(catalog, a, facet, lang)) {
        if (seen.has(key)) continue;
        seen.add(key);
        const v = counts.get(key) ?? { key, label, value: 0, query_value };
        v.value++;
        counts.set(key, v);
      }
    }
    const param = facet === 'temporary' ? 'temporary' : `${facet}_in`;
    return {
      facet_type: 'TERMS' as const,
      key: facet,
      query_param: param,
      label: facet.replace('_', ' '),
      values: [...counts.values()].sort((x, y) => y.value - x.value || x.key.localeCompare(y.key)),
    };
  });
}
