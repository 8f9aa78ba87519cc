import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { errors } from '../http/errors.js';
import type { ActivityRecord } from '../seed/types.js';
import { ActivitySchema, ActivitySearchResultSchema } from './activities.schemas.js';
import { listParam, parseCoordinates, search, validateSort } from './search.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const List = Type.Array(Type.String(), { description: 'comma-separated values' });

const SearchQuerySchema = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'at most 100' }),
  offset: Type.Integer({ minimum: 0, default: 0 }),
  category_in: Type.Optional(List),
  country_in: Type.Optional(List),
  city_in: Type.Optional(List),
  text: Type.Optional(Type.String()),
  text_operator: Type.Enum(['AUTO', 'AND', 'OR'], { default: 'AUTO' }),
  sort_by: Type.Optional(List),
  coordinates: Type.Optional(Type.String({ description: 'latitude,longitude' })),
});
type SearchQueryT = Static<typeof SearchQuerySchema>;

const ParamsSchema = Type.Object({ activityUuid: Type.String({ description: 'activity UUID' }) });

const NOT_PUBLISHED = new Set(['DRAFT', 'REVIEW']);

/** Looks an activity up for the activity endpoints: 400 malformed, 404 1400 unknown, 403 unpublished. */
export function findActivity(app: FastifyInstance, uuid: string): ActivityRecord {
  if (!UUID.test(uuid)) throw errors.validation(`params "activityUuid" must be a UUID, got "${uuid}"`);
  const a = app.catalog.activityByUuid.get(uuid.toLowerCase());
  if (!a) throw errors.notFound(`Activity ${uuid} does not exist`);
  if (NOT_PUBLISHED.has(a.status)) throw errors.activityNotAccessible(uuid, a.status);
  return a;
}

export default async function activitiesRoutes(app: FastifyInstance) {
  const { catalog } = app;
  const online = catalog.activities.filter((a) => a.status === 'ONLINE');
  const bodies = app.activityBodies;

  app.get<{ Querystring: SearchQueryT }>(
    '/activities',
    {
      schema: {
        tags: ['activities'],
        summary: 'Search activities',
        querystring: SearchQuerySchema,
        response: { 200: ActivitySearchResultSchema },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const country_in = listParam(q.country_in);
      const bad = country_in.find((c) => c.length !== 2);
      if (bad !== undefined) throw errors.validation(`querystring "country_in" items must be exactly 2 characters, got "${bad}"`);
      const cityIds = listParam(q.city_in).map((c) => {
        const n = Number(c);
        if (!Number.isInteger(n)) throw errors.validation(`querystring "city_in" items must be integer ids, got "${c}"`);
        return n;
      });
      const sort_by = listParam(q.sort_by);
      const coordinates = parseCoordinates(q.coordinates);
      validateSort(sort_by, coordinates !== undefined);
      const found = search(
        catalog,
        online,
        { category_in: listParam(q.category_in), country_in, city_in: cityIds, text: q.text, text_operator: q.text_operator, sort_by, coordinates },
        request.service.locale.language,
      );
      const page = found.slice(q.offset, q.offset + q.limit);
      const body = `{"meta":{"count":${found.length}},"data":${bodies.list(page, request)}}`;
      return reply.type('application/json; charset=utf-8').send(body);
    },
  );

  app.get<{ Params: Static<typeof ParamsSchema> }>(
    '/activities/:activityUuid',
    {
      schema: {
        tags: ['activities'],
        summary: 'Get an activity by UUID',
        params: ParamsSchema,
        response: { 200: ActivitySchema },
      },
    },
    async (request, reply) => {
      const a = findActivity(app, request.params.activityUuid);
      const body = bodies.one(a, request);
      return reply.type('application/json; charset=utf-8').send(body);
    },
  );
}
