import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { clip, errors } from '../http/errors.js';
import { CONTENT_LANGUAGES, type Lang } from '../seed/types.js';
import { ActivitySchema } from './activities.schemas.js';
import { findActivity } from './activities.routes.js';
import { CommentsQuery, commentsOf, reviewsOf, type ReviewRecord } from './reviews.js';
import { listParam } from './search.js';
import { isDay } from './schedule.js';
import { tr, trList } from './text.js';
import { asBuilt } from '../http/as-built.js';
import { ActivityContentSchema, BundleSchema, CatalogUpdateSchema, CommentSchema, ReviewSchema, SafetyInformationSchema } from './content.schemas.js';

const Params = Type.Object({ activityUuid: Type.String({ description: 'activity UUID' }) });
type P = { Params: Static<typeof Params> };
const ContentParams = Type.Object({ activityUuid: Type.String(), locale: Type.String({ minLength: 2, maxLength: 5 }) });
const ReviewsQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 6 }),
  page: Type.Integer({ minimum: 1, default: 1 }),
  locale: Type.Optional(Type.String()),
  sort_by: Type.Enum(['NEWEST', 'HIGHEST-RATED', 'LOWEST-RATED', 'PREFERRED-LANGUAGE'], { default: 'NEWEST' }),
  traveler_type_in: Type.Optional(Type.Array(Type.String())),
  'rating[between][]': Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: 5 }), { maxItems: 2 })),
});

const byDate = (a: ReviewRecord, b: ReviewRecord) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0);

export default async function activityContentRoutes(app: FastifyInstance) {
  const { catalog } = app;
  const lang = (request: { service: { locale: { language: string } } }) => request.service.locale.language;

  app.get<{ Params: Static<typeof ContentParams> }>(
    '/activities/:activityUuid/contents/:locale',
    { serializerCompiler: asBuilt, schema: { tags: ['activity info'], summary: 'Content of the activity in one language', params: ContentParams, response: { 200: ActivityContentSchema } } },
    async (request) => {
      const a = findActivity(app, request.params.activityUuid);
      const code = request.params.locale.slice(0, 2).toLowerCase() as Lang;
      if (!(CONTENT_LANGUAGES as readonly string[]).includes(code) || !a.content_languages.includes(code)) {
        throw errors.notFound(`Activity ${a.uuid} has no content for locale ${clip(request.params.locale)}`);
      }
      return {
        locale: code,
        title: tr(a.title, code),
        description: tr(a.about, code),
        meeting_point: tr(a.meeting_point, code),
        where: tr(a.where_text, code),
        operational_days: tr(a.operational_days, code),
        is_default: code === 'en',
        meta_title: tr(a.meta_title, code),
        meta_description: tr(a.meta_description, code),
        emergency_phone_number: a.emergency_phone_number,
        highlights: trList(a.highlights, code).join('\n'),
        included: trList(a.included, code).join('\n'),
        not_included: trList(a.not_included, code).join('\n'),
        info: tr(a.info, code),
        translated: code !== 'en',
        is_manually_translated_complete: !a.machine_translated.includes(code),
      };
    },
  );

  app.get<P & { Querystring: Static<typeof CommentsQuery> }>(
    '/activities/:activityUuid/comments',
    { serializerCompiler: asBuilt, schema: { tags: ['reviews'], summary: 'Comments (deprecated: use reviews)', deprecated: true, params: Params, querystring: CommentsQuery, response: { 200: Type.Array(CommentSchema) } } },
    async (request) => {
      const a = findActivity(app, request.params.activityUuid);
      return commentsOf([a], request.query);
    },
  );

  app.get<P & { Querystring: Static<typeof ReviewsQuery> }>(
    '/activities/:activityUuid/reviews',
    { serializerCompiler: asBuilt, schema: { tags: ['reviews'], summary: 'Reviews', params: Params, querystring: ReviewsQuery, response: { 200: Type.Array(ReviewSchema) } } },
    async (request) => {
      const a = findActivity(app, request.params.activityUuid);
      const q = request.query;
      const [min = 1, max = 5] = q['rating[between][]'] ?? [];
      const types = listParam(q.traveler_type_in);
      const list = reviewsOf(a).filter(
        (r) => r.body !== '' && r.rating >= min && r.rating <= max && (!q.locale || r.locale === q.locale.slice(0, 2)) && (!types.length || types.includes(r.traveler_type)),
      );
      const preferred = lang(request);
      const order: Record<string, (x: ReviewRecord, y: ReviewRecord) => number> = {
        NEWEST: (x, y) => byDate(y, x),
        'HIGHEST-RATED': (x, y) => y.rating - x.rating || byDate(y, x),
        'LOWEST-RATED': (x, y) => x.rating - y.rating || byDate(y, x),
        'PREFERRED-LANGUAGE': (x, y) => Number(y.locale === preferred) - Number(x.locale === preferred) || byDate(y, x),
      };
      list.sort(order[q.sort_by]);
      return list.slice((q.page - 1) * q.limit, q.page * q.limit).map((r) => ({
        uuid: r.uuid, comment: r.body, customer_country: r.customer_country, date: r.date, rating_value: r.rating, traveler_type: r.traveler_type,
      }));
    },
  );

  app.get<P>(
    '/activities/:activityUuid/bundles',
    { schema: { tags: ['activity info'], summary: 'Activities to buy together', params: Params, response: { 200: Type.Array(BundleSchema) } } },
    async (request, reply) => {
      const a = findActivity(app, request.params.activityUuid);
      const others = a.bundle_uuids.flatMap((u) => {
        const b = catalog.activityByUuid.get(u);
        return b && b.status === 'ONLINE' ? [b] : [];
      });
      if (others.length === 0) throw errors.notFound(`Activity ${a.uuid} has no bundles`);
      const body = `[{"discount":10,"discount_type":"PERCENTAGE","bundle_type":"from_second","rule_id":"bundle-${a.id}","activities":${app.activityBodies.list(others, request)}}]`;
      return reply.type('application/json; charset=utf-8').send(body);
    },
  );

  app.get<P & { Querystring: { limit: number } }>(
    '/activities/:activityUuid/related-activities',
    {
      schema: {
        tags: ['activity info'], summary: 'Activities in the same city and categories', params: Params,
        querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 100, default: 10 }) }),
        response: { 200: Type.Array(ActivitySchema) },
      },
    },
    async (request, reply) => {
      const a = findActivity(app, request.params.activityUuid);
      const related = catalog.activities
        .filter((b) => b !== a && b.status === 'ONLINE' && b.city_id === a.city_id)
        .sort((x, y) => Number(y.category_ids.some((c) => a.category_ids.includes(c))) - Number(x.category_ids.some((c) => a.category_ids.includes(c))) || y.relevance - x.relevance)
        .slice(0, request.query.limit);
      if (related.length === 0) throw errors.notFound(`No related activities for ${a.uuid}`);
      return reply.type('application/json; charset=utf-8').send(app.activityBodies.list(related, request));
    },
  );

  app.get<P>(
    '/activities/:activityUuid/safety-information',
    { serializerCompiler: asBuilt, schema: { tags: ['activity info'], summary: 'Safety measures of the activity', params: Params, response: { 200: SafetyInformationSchema } } },
    async (request) => {
      const a = findActivity(app, request.params.activityUuid);
      return { safety_measures: a.feature_codes.length % 2 === 0 ? [] : [{ code: 'reduced-capacity', name: tr({ en: 'Reduced group size', it: 'Gruppi ridotti', de: 'Kleinere Gruppen', fr: 'Groupes réduits', es: 'Grupos reducidos' }, lang(request)) }] };
    },
  );

  app.get<{ Params: { day: string } }>(
    '/catalog/updates/:day',
    { serializerCompiler: asBuilt, schema: { tags: ['activities'], summary: 'Activities of the catalog changed on a day', params: Type.Object({ day: Type.String({ description: 'YYYY-MM-DD' }) }), response: { 200: Type.Array(CatalogUpdateSchema) } } },
    async (request) => {
      const { day } = request.params;
      if (!isDay(day)) throw errors.validation(`params "day" is not a date: ${clip(day)}`);
      if (day > app.activityBodies.today(request.service.application)) throw errors.validation(`params "day" ${day} is in the future`);
      // The mock's catalog does not change; a stable, day-dependent sample stands for the changes.
      const n = Number(day.replaceAll('-', ''));
      return catalog.activities.filter((a) => (a.id + n) % 7 === 0).map((a) => ({ uuid: a.uuid }));
    },
  );
}
