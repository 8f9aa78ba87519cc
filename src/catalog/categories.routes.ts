import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { page, paging } from '../http/pagination.js';
import type { CategoryRecord, Text } from '../seed/types.js';
import { tr } from './text.js';
import { byId, groupOnline, placeSort, sortActivities } from './lookup.js';
import { renderCategory } from './taxonomy.render.js';
import { CategorySchema } from './taxonomy.schemas.js';
import { ActivitySchema, SortByQuery } from './activities.schemas.js';
import { asBuilt } from '../http/as-built.js';
import { CategoryTreeSchema } from './content.schemas.js';

const Id = Type.Object({ categoryId: Type.Integer({ minimum: 1 }) });
const ListQuery = Type.Object({
  ...paging(),
  level: Type.Optional(Type.Integer({ minimum: 0, description: '0 = all levels' })),
  parent_id: Type.Optional(Type.Integer({ minimum: 1 })),
});
const ActivitiesQuery = Type.Object({
  ...paging(),
  city: Type.Optional(Type.Integer()),
  venue: Type.Optional(Type.Integer()),
  sort_by: SortByQuery,
});
const ALL: Text = { en: 'All categories', it: 'Tutte le categorie', de: 'Alle Kategorien', fr: 'Toutes les catégories', es: 'Todas las categorías' };
type TreeNode = Static<typeof CategorySchema> & { parent_id: number | null; children: TreeNode[] };

export default async function categoriesRoutes(app: FastifyInstance) {
  const { catalog } = app;
  const activities = groupOnline(app, (a) => a.category_ids);
  const tags = ['categories'];

  app.get<{ Querystring: Static<typeof ListQuery> }>(
    '/categories',
    { schema: { tags, summary: 'Categories', querystring: ListQuery, response: { 200: Type.Array(CategorySchema) } } },
    async (request) => {
      const { level, parent_id } = request.query;
      const lang = request.service.locale.language;
      const list = catalog.categories.filter(
        (c) => (level === undefined || level === 0 || c.level === level - 1) && (parent_id === undefined || c.parent_id === parent_id),
      );
      return page(list, request.query).map((c) => renderCategory(c, lang));
    },
  );

  // The vendor's document answers one Category: the tree's root, holding the top categories as its
  // children. The catalog has several tops, so the root is a node of its own: id 0, level "0" (the
  // level that means "all" in GET /categories).
  app.get('/categories-tree', { serializerCompiler: asBuilt, schema: { tags, summary: 'Categories as one tree: a root (id 0) whose children are the top categories', response: { 200: CategoryTreeSchema } } }, async (request) => {
    const lang = request.service.locale.language;
    const node = (c: CategoryRecord): TreeNode => ({
      ...renderCategory(c, lang),
      parent_id: c.parent_id,
      children: catalog.categories.filter((x) => x.parent_id === c.id).map(node),
    });
    const children = catalog.categories.filter((c) => c.parent_id === null).map(node);
    return { id: 0, code: 'root', name: tr(ALL, lang), level: '0', cover_image_url: '', event_image_url: '', url: '', parent_id: null, children };
  });

  app.get<{ Params: Static<typeof Id> }>(
    '/categories/:categoryId',
    { schema: { tags, summary: 'One category', params: Id, response: { 200: CategorySchema } } },
    async (request) => renderCategory(byId(catalog.categoryById, request.params.categoryId, 'Category'), request.service.locale.language),
  );

  app.get<{ Params: Static<typeof Id>; Querystring: Static<typeof ActivitiesQuery> }>(
    '/categories/:categoryId/activities',
    { schema: { tags, summary: "A category's activities", params: Id, querystring: ActivitiesQuery, response: { 200: Type.Array(ActivitySchema) } } },
    async (request, reply) => {
      const { categoryId } = request.params;
      byId(catalog.categoryById, categoryId, 'Category');
      const { city, venue, sort_by } = request.query;
      const list = (activities.get(categoryId) ?? []).filter(
        (a) => (city === undefined || a.city_id === city) && (venue === undefined || a.venue_ids.includes(venue)),
      );
      const body = app.activityBodies.list(page(sortActivities(list, placeSort(sort_by, 'relevance'), catalog), request.query), request);
      return reply.type('application/json; charset=utf-8').send(body);
    },
  );
}
