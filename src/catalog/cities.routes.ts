import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { errors } from '../http/errors.js';
import { page, paging, PagingQuery } from '../http/pagination.js';
import type { CityRecord } from '../seed/types.js';
import { ActivitySchema, SortByQuery } from './activities.schemas.js';
import { byId, groupOnline, placeSort, sortActivities } from './lookup.js';
import { distanceKm, parseCoordinates, parseDistanceKm } from './search.js';
import { renderCategory, renderCity, renderVenue } from './taxonomy.render.js';
import { CategorySchema, CitySchema, VenueSchema } from './taxonomy.schemas.js';

const Id = Type.Object({ cityId: Type.Integer({ minimum: 1 }) });
const CityAggregatedSchema = Type.Intersect([
  CitySchema,
  Type.Object({ event_count: Type.Integer({ minimum: 0 }), activities_count: Type.Integer({ minimum: 0 }), venue_count: Type.Integer({ minimum: 0 }) }),
]);
const ListQuery = Type.Object({
  ...paging(),
  coordinates: Type.Optional(Type.String({ description: 'latitude,longitude' })),
  distance: Type.Optional(Type.String({ pattern: '^[0-9]+(KM|M)$', description: 'e.g. 50KM or 30M (miles); needs coordinates' })),
  sort_by: Type.Enum(['weight', 'none'], { default: 'weight' }),
  without_events: Type.Enum(['yes', 'no'], { default: 'no' }),
  prioritized_country: Type.Optional(Type.Integer()),
});
const ActivitiesQuery = Type.Object({
  ...paging(),
  category: Type.Optional(Type.Integer()),
  venue: Type.Optional(Type.Integer()),
  sort_by: SortByQuery,
});

export default async function citiesRoutes(app: FastifyInstance) {
  const { catalog } = app;
  const activities = groupOnline(app, (a) => [a.city_id, ...a.destination_city_ids]);
  const venuesOf = new Map<number, typeof catalog.venues>();
  for (const v of catalog.venues) venuesOf.set(v.city_id, [...(venuesOf.get(v.city_id) ?? []), v]);
  const tags = ['cities'];
  const aggregated = (c: CityRecord, lang: string) => {
    const count = activities.get(c.id)?.length ?? 0;
    return { ...renderCity(c, catalog, lang), event_count: count, activities_count: count, venue_count: venuesOf.get(c.id)?.length ?? 0 };
  };

  app.get<{ Querystring: Static<typeof ListQuery> }>(
    '/cities',
    { schema: { tags, summary: 'Cities', querystring: ListQuery, response: { 200: Type.Array(CityAggregatedSchema) } } },
    async (request) => {
      const q = request.query;
      const at = parseCoordinates(q.coordinates);
      if (q.distance && !at) throw errors.validation('querystring "distance" needs "coordinates"');
      let list = catalog.cities.filter((c) => q.without_events === 'yes' || (activities.get(c.id)?.length ?? 0) > 0);
      if (at && q.distance) {
        const km = parseDistanceKm(q.distance);
        list = list.filter((c) => distanceKm(at, { lat: c.latitude, lng: c.longitude }) <= km);
      }
      if (q.sort_by === 'weight') list = [...list].sort((a, b) => b.weight - a.weight);
      if (at) list = [...list].sort((a, b) => distanceKm(at, { lat: a.latitude, lng: a.longitude }) - distanceKm(at, { lat: b.latitude, lng: b.longitude }));
      if (q.prioritized_country !== undefined) {
        list = [...list.filter((c) => c.country_id === q.prioritized_country), ...list.filter((c) => c.country_id !== q.prioritized_country)];
      }
      return page(list, q).map((c) => aggregated(c, request.service.locale.language));
    },
  );

  app.get<{ Params: Static<typeof Id> }>(
    '/cities/:cityId',
    { schema: { tags, summary: 'One city', params: Id, response: { 200: CitySchema } } },
    async (request) => renderCity(byId(catalog.cityById, request.params.cityId, 'City'), catalog, request.service.locale.language),
  );

  app.get<{ Params: Static<typeof Id>; Querystring: Static<typeof ActivitiesQuery> }>(
    '/cities/:cityId/activities',
    { schema: { tags, summary: "A city's activities", params: Id, querystring: ActivitiesQuery, response: { 200: Type.Array(ActivitySchema) } } },
    async (request, reply) => {
      const { cityId } = request.params;
      byId(catalog.cityById, cityId, 'City');
      const { category, venue, sort_by } = request.query;
      const list = (activities.get(cityId) ?? []).filter(
        (a) => (category === undefined || a.category_ids.includes(category)) && (venue === undefined || a.venue_ids.includes(venue)),
      );
      const body = app.activityBodies.list(page(sortActivities(list, placeSort(sort_by, 'relevance'), catalog), request.query), request);
      return reply.type('application/json; charset=utf-8').send(body);
    },
  );

  app.get<{ Params: Static<typeof Id> }>(
    '/cities/:cityId/categories',
    { schema: { tags, summary: 'Categories with activities in a city', params: Id, response: { 200: Type.Array(CategorySchema) } } },
    async (request) => {
      const { cityId } = request.params;
      byId(catalog.cityById, cityId, 'City');
      const ids = new Set((activities.get(cityId) ?? []).flatMap((a) => a.category_ids));
      return catalog.categories.filter((c) => ids.has(c.id)).map((c) => renderCategory(c, request.service.locale.language));
    },
  );

  app.get<{ Params: Static<typeof Id>; Querystring: Static<typeof PagingQuery> }>(
    '/cities/:cityId/venues',
    { schema: { tags, summary: "A city's venues", params: Id, querystring: PagingQuery, response: { 200: Type.Array(VenueSchema) } } },
    async (request) => {
      const { cityId } = request.params;
      byId(catalog.cityById, cityId, 'City');
      return page(venuesOf.get(cityId) ?? [], request.query).map((v) => renderVenue(v, request.service.locale.language));
    },
  );
}

