import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { clip, errors } from '../http/errors.js';
import type { ActivityRecord } from '../seed/types.js';
import { ActivitySchema, ActivitySearchResultSchema, SortByQuery } from './activities.schemas.js';
import { idList, listParam, parseCoordinates, parseDistanceKm, parseDurationRange, parseRange, search, validateSort, type SearchQuery } from './search.js';
import { facets } from './facets.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const List = Type.Array(Type.String(), { description: 'comma-separated values' });

const YesNo = Type.Optional(Type.Enum(['YES', 'NO']));
const SearchQuerySchema = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'at most 100' }),
  offset: Type.Integer({ minimum: 0, default: 0 }),
  category_in: Type.Optional(List),
  country_in: Type.Optional(Type.Array(Type.String(), { description: 'two-letter country codes, comma-separated' })),
  city_in: Type.Optional(List),
  venue_in: Type.Optional(List),
  feature_in: Type.Optional(List),
  flavour_in: Type.Optional(List),
  flavour_not_in: Type.Optional(List),
  service_in: Type.Optional(List),
  seller_in: Type.Optional(Type.Array(Type.String(), { description: 'supplier uuids' })),
  pickup_in: Type.Optional(List),
  available_language_in: Type.Optional(List),
  vertical_in: Type.Optional(Type.Array(Type.String(), { description: 'deprecated: category codes' })),
  temporary: YesNo,
  discounted: YesNo,
  default_price_range: Type.Optional(Type.String({ description: 'min,max in the request currency, e.g. 0.00,34.23' })),
  duration_range: Type.Optional(Type.String({ description: 'min,max ISO 8601 durations, e.g. PT1H,PT3H' })),
  available_from: Type.Optional(Type.String({ format: 'date' })),
  available_to: Type.Optional(Type.String({ format: 'date' })),
  coordinates: Type.Optional(Type.String({ description: 'latitude,longitude' })),
  distance: Type.Optional(Type.String({ pattern: '^[0-9]+(KM|M)$', description: 'e.g. 50KM or 30M (miles); needs coordinates' })),
  text: Type.Optional(Type.String()),
  text_operator: Type.Enum(['AUTO', 'AND', 'OR'], { default: 'AUTO' }),
  fuzziness_level: Type.Enum(['AUTO', 'LEVEL-0', 'LEVEL-1', 'LEVEL-2'], { default: 'LEVEL-0' }),
  zero_terms_query: Type.Enum(['NONE', 'ALL'], { default: 'NONE' }),
  extend_content_fields: Type.Enum(['AUTO', 'YES', 'NO'], { default: 'AUTO' }),
  extend_other_languages: Type.Enum(['AUTO', 'YES', 'NO'], { default: 'AUTO' }),
  preferred_seller_code: Type.Optional(Type.String()),
  preferred_seller_boost: Type.Number({ minimum: 0, default: 0 }),
  include_facets: Type.Optional(List),
  sort_by: SortByQuery,
});
type SearchQueryT = Static<typeof SearchQuerySchema>;

const ParamsSchema = Type.Object({ activityUuid: Type.String({ description: 'activity UUID' }) });

const NOT_PUBLISHED = new Set(['DRAFT', 'REVIEW']);

/** Looks an activity up for the activity endpoints: 400 malformed, 404 1400 unknown, 403 unpublished. */
export function findActivity(app: FastifyInstance, uuid: string): ActivityRecord {
  // Catalog keys are lower-case UUIDs: a hit needs no pattern check.
  let a = app.catalog.activityByUuid.get(uuid);
  if (!a) {
    if (!UUID.test(uuid)) throw errors.validation(`params "activityUuid" must be a UUID, got "${clip(uuid)}"`);
    a = app.catalog.activityByUuid.get(uuid.toLowerCase());
    if (!a) throw errors.notFound(`Activity ${uuid} does not exist`);
  }
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
    (request, reply) => {
      // The answer depends only on the URL, the request context and the immutable catalog.
      const body = bodies.response(request, () => {
        const q = request.query;
        const country_in = listParam(q.country_in).map((c) => c.toUpperCase());
        const bad = country_in.find((c) => c.length !== 2);
        if (bad !== undefined) throw errors.validation(`querystring "country_in" items must be exactly 2 characters, got "${clip(bad)}"`);
        const sort_by = listParam(q.sort_by);
        const coordinates = parseCoordinates(q.coordinates);
        if (q.distance && !coordinates) throw errors.validation('querystring "distance" needs "coordinates"');
        validateSort(sort_by, coordinates !== undefined);
        const price = parseRange('default_price_range', q.default_price_range);
        const rate = catalog.currencyByCode.get(request.service.currency)?.usd_rate ?? 1;
        const lang = request.service.locale.language;
        const query: SearchQuery = {
          category_in: listParam(q.category_in),
          country_in,
          city_in: idList('city_in', q.city_in),
          venue_in: idList('venue_in', q.venue_in),
          feature_in: listParam(q.feature_in),
          flavour_in: idList('flavour_in', q.flavour_in),
          flavour_not_in: idList('flavour_not_in', q.flavour_not_in),
          service_in: listParam(q.service_in),
          seller_in: listParam(q.seller_in),
          pickup_in: listParam(q.pickup_in),
          available_language_in: listParam(q.available_language_in),
          vertical_in: listParam(q.vertical_in),
          temporary: q.temporary === undefined ? undefined : q.temporary === 'YES',
          discounted: q.discounted === undefined ? undefined : q.discounted === 'YES',
          price_usd: price && [price[0] / rate, price[1] / rate],
          duration_ms: parseDurationRange(q.duration_range),
          available_from: q.available_from,
          available_to: q.available_to,
          coordinates,
          distance_km: q.distance ? parseDistanceKm(q.distance) : undefined,
          text: q.text,
          text_operator: q.text_operator,
          fuzziness_level: q.fuzziness_level,
          zero_terms_query: q.zero_terms_query,
          extend_content_fields: q.extend_content_fields,
          extend_other_languages: q.extend_other_languages,
          preferred_seller_code: q.preferred_seller_code,
          preferred_seller_boost: q.preferred_seller_boost,
          sort_by,
        };
        const found = search(catalog, online, query, lang);
        const wanted = listParam(q.include_facets);
        const facetPart = wanted.length ? `,"facets":${JSON.stringify(facets(catalog, found, wanted, lang))}` : '';
        const page = found.slice(q.offset, q.offset + q.limit);
        const body = `{"meta":{"count":${found.length}},"data":${bodies.list(page, request)}${facetPart}}`;
        return body;
      });
      reply.type('application/json; charset=utf-8').send(body);
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
    // Synchronous, and nothing returned: an async handler (or a returned reply) costs a promise and
    // a turn of the microtask queue on the hottest route.
    (request, reply) => {
      const a = findActivity(app, request.params.activityUuid);
      reply.type('application/json; charset=utf-8').send(bodies.response(request, () => bodies.one(a, request)));
    },
  );
}
