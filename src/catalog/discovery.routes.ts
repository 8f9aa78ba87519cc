import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { clip, errors } from '../http/errors.js';
import type { Text } from '../seed/types.js';
import { listsOf } from './lists.js';
import { distanceKm, listParam, parseCoordinates } from './search.js';
import { tr } from './text.js';
import { asBuilt } from '../http/as-built.js';
import { AutocompleteResultSchema, RelatedResultSchema } from './content.schemas.js';

/** Something a text search can find: a city, list, venue, activity, ... */
interface Findable {
  id: number | string;
  name: Text;
  url: string;
  api_url: string;
  cover_image: string;
  events: number;
  relevance: number;
  at?: { lat: number; lng: number };
  hint?: string;
}

const limit = (d: number) => Type.Integer({ minimum: 0, maximum: 100, default: d });
const offset = () => Type.Integer({ minimum: 0, default: 0 });
const RelatedQuery = Type.Object({
  text: Type.Optional(Type.String()),
  coordinates: Type.Optional(Type.String({ description: 'latitude,longitude' })),
  minimum_events: Type.Integer({ minimum: 1, default: 1 }),
  sort_by: Type.Optional(Type.Array(Type.String(), { description: 'at most two of distance, -distance, relevance, -relevance' })),
  city_limit: limit(10), city_offset: offset(), list_limit: limit(10), list_offset: offset(), venue_limit: limit(10), venue_offset: offset(),
  text_operator: Type.Optional(Type.Enum(['AUTO', 'AND', 'OR'])),
  fuzziness_level: Type.Optional(Type.Enum(['AUTO', 'LEVEL-0', 'LEVEL-1', 'LEVEL-2'])),
  zero_terms_query: Type.Optional(Type.Enum(['NONE', 'ALL'])),
  extend_content_fields: Type.Optional(Type.Enum(['AUTO', 'YES', 'NO'])),
  extend_other_languages: Type.Optional(Type.Enum(['AUTO', 'YES', 'NO'])),
});
const GROUPS = ['activity', 'category', 'city', 'list', 'venue', 'country', 'hotel', 'pickup'] as const;
const AutocompleteQuery = Type.Object({
  text: Type.Optional(Type.String({ description: 'the text typed so far; absent, every item is a suggestion' })),
  coordinates: Type.Optional(Type.String()),
  ...Object.fromEntries(GROUPS.flatMap((g) => [[`${g}_limit`, limit(3)], [`${g}_offset`, offset()]])),
});

/** Search across cities, lists and venues (activities-related) and the search box's suggestions (autocomplete). */
export default async function discoveryRoutes(app: FastifyInstance) {
  const { catalog } = app;
  const base = `${app.config.basePath === '/' ? '' : app.config.basePath}`;
  const count = (pred: (a: (typeof catalog.activities)[number]) => boolean) => catalog.activities.filter((a) => a.status === 'ONLINE' && pred(a)).length;
  const groups: Record<(typeof GROUPS)[number], Findable[]> = {
    city: catalog.cities.map((c) => ({ id: c.id, name: c.name, url: c.url, api_url: `${base}/cities/${c.id}`, cover_image: c.cover_image_url, events: count((a) => a.city_id === c.id), relevance: c.weight, at: { lat: c.latitude, lng: c.longitude } })),
    venue: catalog.venues.map((v) => ({ id: v.id, name: v.name, url: v.url, api_url: `${base}/venues/${v.id}`, cover_image: v.cover_image_url, events: count((a) => a.venue_ids.includes(v.id)), relevance: v.relevance, at: { lat: v.latitude, lng: v.longitude } })),
    list: listsOf(catalog).map((l) => ({ id: l.id, name: l.title, url: `${l.city.url}lists/${l.id}/`, api_url: `${base}/lists/${l.id}`, cover_image: l.category.cover_image_url, events: l.activities.length, relevance: l.activities.length, at: { lat: l.city.latitude, lng: l.city.longitude } })),
    category: catalog.categories.map((c) => ({ id: c.id, name: c.name, url: c.url, api_url: `${base}/categories/${c.id}`, cover_image: c.cover_image_url, events: count((a) => a.category_ids.includes(c.id)), relevance: 100 - c.id })),
    country: catalog.countries.map((c) => ({ id: c.id, name: c.name, url: '', api_url: `${base}/countries/${c.id}`, cover_image: '', events: count((a) => catalog.cityById.get(a.city_id)?.country_id === c.id), relevance: 100 - c.id })),
    activity: catalog.activities.filter((a) => a.status === 'ONLINE').map((a) => ({ id: a.uuid, name: a.title, url: '', api_url: `${base}/activities/${a.uuid}`, cover_image: a.cover_image_url, events: 1, relevance: a.relevance, at: { lat: a.latitude, lng: a.longitude } })),
    hotel: [],
    pickup: [],
  };
  for (const a of catalog.activities) {
    for (const p of a.booking.pickups) {
      const target = p.type === 'HOTEL' ? groups.hotel : groups.pickup;
      if (!target.some((x) => x.id === p.uuid)) target.push({ id: p.uuid, name: { en: p.name }, url: '', api_url: `${base}/activities/${a.uuid}/pickups`, cover_image: '', events: 1, relevance: 0, at: { lat: p.latitude, lng: p.longitude }, hint: tr(catalog.cityById.get(a.city_id)?.name ?? { en: '' }, 'en') });
    }
  }
  const matches = (f: Findable, text: string | undefined, lang: string) =>
    !text || tr(f.name, lang).toLowerCase().includes(text.toLowerCase()) || f.name.en.toLowerCase().includes(text.toLowerCase());
  const exact = (f: Findable, text: string | undefined, lang: string) =>
    !!text && (tr(f.name, lang).toLowerCase() === text.toLowerCase() || f.name.en.toLowerCase() === text.toLowerCase());
  const item = (f: Findable, request: FastifyRequest) => ({
    id: String(f.id), title: tr(f.name, request.service.locale.language), cover_image: f.cover_image, url: f.url, api_url: f.api_url, events_count: f.events,
  });

  app.get<{ Querystring: Static<typeof RelatedQuery> }>(
    '/activities-related',
    { serializerCompiler: asBuilt, schema: { tags: ['additional searches'], summary: 'Cities, lists and venues matching a text', querystring: RelatedQuery, response: { 200: Type.Array(RelatedResultSchema) } } },
    async (request) => {
      const q = request.query;
      const lang = request.service.locale.language;
      const at = parseCoordinates(q.coordinates);
      const sort = listParam(q.sort_by);
      if (sort.length > 2) throw errors.validation('querystring "sort_by" takes at most two values');
      for (const s of sort) {
        if (!['distance', '-distance', 'relevance', '-relevance'].includes(s)) throw errors.outsideList('querystring', 'sort_by', `querystring "sort_by" has unknown value "${clip(s)}": one of distance, -distance, relevance, -relevance`);
        if (s.endsWith('distance') && !at) throw errors.validation('querystring "sort_by" distance needs "coordinates"');
      }
      return ([['cities', 'city'], ['lists', 'list'], ['venues', 'venue']] as const).map(([type, key]) => {
        const found = groups[key].filter((f) => f.events >= q.minimum_events && matches(f, q.text, lang));
        // Items without relevance or coordinates keep their place, as the spec says.
        found.sort((x, y) => {
          for (const s of sort) {
            const dir = s.startsWith('-') ? -1 : 1;
            const d = s.endsWith('distance') ? (x.at && y.at && at ? distanceKm(at, x.at) - distanceKm(at, y.at) : 0) : x.relevance - y.relevance;
            if (d !== 0) return dir * d;
          }
          return 0;
        });
        const from = q[`${key}_offset`];
        return { type, matched: found.some((f) => exact(f, q.text, lang)), items: found.slice(from, from + q[`${key}_limit`]).map((f) => item(f, request)) };
      });
    },
  );

  app.get<{ Querystring: Static<typeof AutocompleteQuery> & Record<string, number> }>(
    '/autocomplete',
    { serializerCompiler: asBuilt, schema: { tags: ['additional searches'], summary: 'Suggestions for a search box, hotels and pickups included', querystring: AutocompleteQuery, response: { 200: Type.Array(AutocompleteResultSchema) } } },
    async (request) => {
      const q = request.query;
      const lang = request.service.locale.language;
      const at = parseCoordinates(q.coordinates);
      return GROUPS.map((type) => {
        const found = groups[type].filter((f) => matches(f, q.text, lang));
        if (at) found.sort((x, y) => (x.at && y.at ? distanceKm(at, x.at) - distanceKm(at, y.at) : 0));
        else found.sort((x, y) => y.relevance - x.relevance);
        const from = q[`${type}_offset`] ?? 0;
        return {
          type,
          items: found.slice(from, from + (q[`${type}_limit`] ?? 3)).map((f) => ({
            id: String(f.id), title: tr(f.name, lang), cover_image: f.cover_image, url: f.url, api_url: f.api_url, hint: f.hint ?? null,
          })),
        };
      });
    },
  );
}
