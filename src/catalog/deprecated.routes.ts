import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { clip, errors } from '../http/errors.js';
import { page, paging } from '../http/pagination.js';
import { ActivitySchema } from './activities.schemas.js';
import { CommentsQuery, commentsOf } from './reviews.js';
import { idList, listParam } from './search.js';
import { tr } from './text.js';
import { asBuilt } from '../http/as-built.js';
import { CommentSchema } from './content.schemas.js';

/** The spec says 0 or 1; the vendor's document YES (or NO): both are taken. */
const ZeroOne = Type.Optional(Type.Enum(['0', '1', 'YES', 'NO']));
const yes = (v: string | undefined) => v === '1' || v === 'YES';
const Ids = Type.Optional(Type.Array(Type.String(), { description: 'integer ids, comma-separated' }));
const EventsQuery = Type.Object({
  category_in: Ids, city_in: Ids, country_in: Ids, not_city_in: Ids, not_country_in: Ids, id_in: Ids,
  vertical_in: Type.Optional(Type.Array(Type.String(), { description: 'deprecated: category codes' })),
  discounted: ZeroOne,
  temporary: ZeroOne,
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 100 }),
  offset: Type.Integer({ minimum: 0, default: 0 }),
  page: Type.Integer({ minimum: 1, default: 1 }),
  sort_by: Type.Optional(Type.Array(Type.Enum(['relevance', '-relevance']))),
});
const VerticalSchema = Type.Object({
  id: Type.Integer(), name: Type.String(), active: Type.Boolean(), code: Type.String(), slug: Type.String(), url: Type.String(),
  meta_title: Type.String(), meta_description: Type.String(), cover_image_url: Type.String(), relevance: Type.Integer(), count: Type.Integer(),
});

/** Removed and deprecated groups the spec still lists: /events (+ comments) and verticals. */
export default async function deprecatedRoutes(app: FastifyInstance) {
  const { catalog } = app;
  const online = catalog.activities.filter((a) => a.status === 'ONLINE');
  const countryOf = (cityId: number) => catalog.cityById.get(cityId)?.country_id ?? 0;
  const deprecated = true;

  app.get<{ Querystring: Static<typeof EventsQuery> }>(
    '/events',
    { schema: { tags: ['events (removed)'], summary: 'Activities by ids (removed: use /activities)', deprecated, querystring: EventsQuery, response: { 200: Type.Array(ActivitySchema) } } },
    async (request, reply) => {
      const q = request.query;
      const [cats, cities, countries, notCities, notCountries, ids] = (['category_in', 'city_in', 'country_in', 'not_city_in', 'not_country_in', 'id_in'] as const).map((k) => idList(k, q[k]));
      const verticals = new Set(catalog.categories.filter((c) => listParam(q.vertical_in).includes(c.code)).map((c) => c.id));
      let found = online.filter(
        (a) =>
          (!cats!.length || a.category_ids.some((c) => cats!.includes(c))) &&
          (!verticals.size || a.category_ids.some((c) => verticals.has(c))) &&
          (!cities!.length || cities!.includes(a.city_id)) &&
          (!countries!.length || countries!.includes(countryOf(a.city_id))) &&
          !notCities!.includes(a.city_id) &&
          !notCountries!.includes(countryOf(a.city_id)) &&
          (!ids!.length || ids!.includes(a.id)) &&
          (q.discounted === undefined || (a.discount > 0) === yes(q.discounted)) &&
          (q.temporary === undefined || (a.flags.temporary === true) === yes(q.temporary)),
      );
      const dir = (q.sort_by ?? [])[0] === 'relevance' ? 1 : -1;
      found = [...found].sort((x, y) => dir * (x.relevance - y.relevance));
      const start = (q.page - 1) * q.limit + q.offset;
      return reply.type('application/json; charset=utf-8').send(app.activityBodies.list(found.slice(start, start + q.limit), request));
    },
  );

  app.get<{ Params: { eventId: number }; Querystring: Static<typeof CommentsQuery> }>(
    '/events/:eventId/comments',
    { serializerCompiler: asBuilt, schema: { tags: ['events (removed)'], summary: 'Comments of an activity by numeric id (removed)', deprecated, params: Type.Object({ eventId: Type.Integer({ minimum: 1 }) }), querystring: CommentsQuery, response: { 200: Type.Array(CommentSchema) } } },
    async (request) => {
      const a = catalog.activities.find((x) => x.id === request.params.eventId && x.status === 'ONLINE');
      if (!a) throw errors.notFound(`Event ${clip(request.params.eventId)} does not exist`);
      return commentsOf([a], request.query);
    },
  );

  // Verticals were the top-level categories before categories replaced them.
  const roots = catalog.categories.filter((c) => c.parent_id === null);
  const vertical = (c: (typeof roots)[number], lang: string) => ({
    id: c.id, name: tr(c.name, lang), active: true, code: c.code, slug: c.code, url: c.url,
    meta_title: tr(c.name, lang), meta_description: tr(c.name, lang), cover_image_url: c.cover_image_url,
    relevance: 100 - c.id, count: online.filter((a) => a.category_ids.includes(c.id)).length,
  });
  const VQuery = Type.Object({ ...paging(), category_in: Type.Optional(Type.Array(Type.String(), { description: 'category codes' })) });
  app.get<{ Querystring: Static<typeof VQuery> }>(
    '/verticals',
    { schema: { tags: ['verticals (deprecated)'], summary: 'Verticals (deprecated: use categories)', deprecated, querystring: VQuery, response: { 200: Type.Array(VerticalSchema) } } },
    async (request) => {
      const codes = listParam(request.query.category_in);
      return page(roots.filter((c) => !codes.length || codes.includes(c.code)), request.query).map((c) => vertical(c, request.service.locale.language));
    },
  );
  app.get<{ Params: { verticalId: number } }>(
    '/verticals/:verticalId',
    // An array of one, as the vendor's document has it.
    { schema: { tags: ['verticals (deprecated)'], summary: 'One vertical, in an array of one (deprecated)', deprecated, params: Type.Object({ verticalId: Type.Integer({ minimum: 1 }) }), response: { 200: Type.Array(VerticalSchema) } } },
    async (request) => {
      const c = roots.find((x) => x.id === request.params.verticalId);
      if (!c) throw errors.notFound(`Vertical ${clip(request.params.verticalId)} does not exist`);
      return [vertical(c, request.service.locale.language)];
    },
  );
}
