import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { page, paging, PagingQuery } from '../http/pagination.js';
import { ActivitySchema } from './activities.schemas.js';
import { byId, groupOnline, sortActivities } from './lookup.js';
import { renderCity, renderCountry } from './taxonomy.render.js';
import { CitySchema, CountrySchema } from './taxonomy.schemas.js';

const Id = Type.Object({ countryId: Type.Integer({ minimum: 1 }) });
const ActivitiesQuery = Type.Object({
  ...paging(),
  priority_city: Type.Optional(Type.Integer({ description: 'activities of this city first' })),
});

export default async function countriesRoutes(app: FastifyInstance) {
  const { catalog } = app;
  const countryOfCity = (id: number) => catalog.cityById.get(id)?.country_id ?? 0;
  const activities = groupOnline(app, (a) => [a.city_id, ...a.destination_city_ids].map(countryOfCity));
  const tags = ['countries'];

  app.get<{ Querystring: Static<typeof PagingQuery> }>(
    '/countries',
    { schema: { tags, summary: 'Countries', querystring: PagingQuery, response: { 200: Type.Array(CountrySchema) } } },
    async (request) => page(catalog.countries, request.query).map((c) => renderCountry(c, request.service.locale.language)),
  );

  app.get<{ Params: Static<typeof Id> }>(
    '/countries/:countryId',
    { schema: { tags, summary: 'One country', params: Id, response: { 200: CountrySchema } } },
    async (request) => renderCountry(byId(catalog.countryById, request.params.countryId, 'Country'), request.service.locale.language),
  );

  app.get<{ Params: Static<typeof Id>; Querystring: Static<typeof ActivitiesQuery> }>(
    '/countries/:countryId/activities',
    { schema: { tags, summary: "A country's activities", params: Id, querystring: ActivitiesQuery, response: { 200: Type.Array(ActivitySchema) } } },
    async (request, reply) => {
      const { countryId } = request.params;
      byId(catalog.countryById, countryId, 'Country');
      const { priority_city } = request.query;
      let list = sortActivities(activities.get(countryId) ?? [], 'relevance', catalog);
      if (priority_city !== undefined) list = [...list.filter((a) => a.city_id === priority_city), ...list.filter((a) => a.city_id !== priority_city)];
      return reply.type('application/json; charset=utf-8').send(app.activityBodies.list(page(list, request.query), request));
    },
  );

  app.get<{ Params: Static<typeof Id>; Querystring: Static<typeof PagingQuery> }>(
    '/countries/:countryId/cities',
    { schema: { tags, summary: "A country's cities", params: Id, querystring: PagingQuery, response: { 200: Type.Array(CitySchema) } } },
    async (request) => {
      const { countryId } = request.params;
      byId(catalog.countryById, countryId, 'Country');
      const cities = catalog.cities.filter((c) => c.country_id === countryId).sort((a, b) => b.weight - a.weight);
      return page(cities, request.query).map((c) => renderCity(c, catalog, request.service.locale.language));
    },
  );
}
