import type { Catalog } from '../seed/catalog.js';
import type { ActivityRecord, CategoryRecord, CityRecord, Text } from '../seed/types.js';

/**
 * Editorial lists, derived from the catalog: one per city and top-level category that has published
 * activities ("Museums: the best of Rome"). The id is city id * 100 + category id, stable per seed.
 */
export interface ListView {
  id: number;
  city: CityRecord;
  category: CategoryRecord;
  title: Text;
  activities: ActivityRecord[];
}

const TITLE: Record<string, string> = {
  en: '{cat}: the best of {city}',
  it: '{cat}: il meglio di {city}',
  de: '{cat}: das Beste von {city}',
  fr: '{cat} : le meilleur de {city}',
  es: '{cat}: lo mejor de {city}',
};

const cache = new WeakMap<Catalog, ListView[]>();

export function listsOf(catalog: Catalog): ListView[] {
  const hit = cache.get(catalog);
  if (hit) return hit;
  const rootOf = (id: number): number => {
    let c = catalog.categoryById.get(id);
    while (c && c.parent_id !== null) c = catalog.categoryById.get(c.parent_id);
    return c?.id ?? id;
  };
  const groups = new Map<number, ActivityRecord[]>();
  for (const a of catalog.activities) {
    if (a.status !== 'ONLINE') continue;
    for (const root of new Set(a.category_ids.map(rootOf))) {
      const id = a.city_id * 100 + root;
      groups.set(id, [...(groups.get(id) ?? []), a]);
    }
  }
  const lists: ListView[] = [];
  for (const [id, activities] of [...groups].sort((x, y) => x[0] - y[0])) {
    const city = catalog.cityById.get(Math.floor(id / 100));
    const category = catalog.categoryById.get(id % 100);
    if (!city || !category) continue;
    const title = Object.fromEntries(
      Object.entries(TITLE).map(([l, t]) => [l, t.replace('{cat}', category.name[l as 'en'] ?? category.name.en).replace('{city}', city.name[l as 'en'] ?? city.name.en)]),
    ) as Text;
    lists.push({ id, city, category, title, activities: [...activities].sort((x, y) => y.relevance - x.relevance) });
  }
  cache.set(catalog, lists);
  return lists;
}
