import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { clip, errors } from '../http/errors.js';
import { page, paging } from '../http/pagination.js';
import { ActivitySchema, SortByQuery } from './activities.schemas.js';
import { byId, groupOnline, placeSort, sortActivities } from './lookup.js';
import { CommentsQuery, commentsOf } from './reviews.js';
import { listParam } from './search.js';
import { renderVenue } from './taxonomy.render.js';
import { VenueSchema } from './taxonomy.schemas.js';
import { asBuilt } from '../http/as-built.js';
import { CommentSchema } from './content.schemas.js';

const Id = Type.Object({ venueId: Type.Integer({ minimum: 1 }) });
const ListQuery = Type.Object({
  ...paging(),
  country_in: Type.Optional(Type.Array(Type.String(), { description: 'two-letter country codes, comma-separated' })),
  status: Type.Enum(['ACTIVE', 'NOT-ACTIVE', 'ALL'], { default: 'ACTIVE' }),
});
const ActivitiesQuery = Type.Object({
  ...paging(),
  city: Type.Optional(Type.Integer()),
  category: Type.Optional(Type.Integer()),
  flavour: Type.Optional(Type.Integer()),
  sort_by: SortByQuery,
});

export default async function venuesRoutes(app: FastifyInstance) {
  const { catalog } = app;
  const activities = groupOnline(app, (a) => a.venue_ids);
  const countryOf = (cityId: number) => catalog.countryById.get(catalog.cityById.get(cityId)?.country_id ?? 0)?.iso_code;
  const tags = ['venues'];

  app.get<{ Querystring: Static<typeof ListQuery> }>(
    '/venues',
    { schema: { tags, summary: 'Venues', querystring: ListQuery, response: { 200: Type.Array(VenueSchema) } } },
    async (request) => {
      const codes = listParam(request.query.country_in).map((c) => c.toUpperCase());
      const bad = codes.find((c) => c.length !== 2);
      if (bad !== undefined) throw errors.validation(`querystring "country_in" items must be exactly 2 characters, got "${clip(bad)}"`);
      const { status } = request.query;
      const list = catalog.venues.filter((v) => {
        const active = (activities.get(v.id)?.length ?? 0) > 0;
        if (status === 'ACTIVE' && !active) return false;
        if (status === 'NOT-ACTIVE' && active) return false;
        return codes.length === 0 || codes.includes(countryOf(v.city_id) ?? '');
      });
      return page(list, request.query).map((v) => renderVenue(v, request.service.locale.language));
    },
  );

  app.get<{ Params: Static<typeof Id> }>(
    '/venues/:venueId',
    { schema: { tags, summary: 'One venue', params: Id, response: { 200: VenueSchema } } },
    async (request) => renderVenue(byId(catalog.venueById, request.params.venueId, 'Venue'), request.service.locale.language),
  );

  app.get<{ Params: Static<typeof Id>; Querystring: Static<typeof ActivitiesQuery> }>(
    '/venues/:venueId/activities',
    { schema: { tags, summary: "A venue's activities", params: Id, querystring: ActivitiesQuery, response: { 200: Type.Array(ActivitySchema) } } },
    async (request, reply) => {
      const { venueId } = request.params;
      byId(catalog.venueById, venueId, 'Venue');
      const { city, category, flavour, sort_by } = request.query;
      const list = (activities.get(venueId) ?? []).filter(
        (a) =>
          (city === undefined || a.city_id === city) &&
          (category === undefined || a.category_ids.includes(category)) &&
          (flavour === undefined || a.flavour_ids.includes(flavour)),
      );
      const body = app.activityBodies.list(page(sortActivities(list, placeSort(sort_by, 'venue-relevance'), catalog), request.query), request);
      return reply.type('application/json; charset=utf-8').send(body);
    },
  );

  app.get<{ Params: Static<typeof Id>; Querystring: Static<typeof CommentsQuery> }>(
    '/venues/:venueId/comments',
    { serializerCompiler: asBuilt, schema: { tags, summary: "Comments on a venue's activities", params: Id, querystring: CommentsQuery, response: { 200: Type.Array(CommentSchema) } } },
    async (request) => commentsOf(activities.get(byId(catalog.venueById, request.params.venueId, 'Venue').id) ?? [], request.query),
  );
}
