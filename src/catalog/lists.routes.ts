import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { clip, errors } from '../http/errors.js';
import { page, paging, PagingQuery } from '../http/pagination.js';
import { listsOf, type ListView } from './lists.js';
import { listParam } from './search.js';
import { renderCategory, renderCity } from './taxonomy.render.js';
import { tr } from './text.js';
import { asBuilt } from '../http/as-built.js';
import { ListSchema, ListTypeSchema, ListWithItemsSchema } from './content.schemas.js';

const Id = Type.Object({ listId: Type.Integer({ minimum: 1 }) });
const ListQuery = Type.Object({
  ...paging(),
  city_in: Type.Optional(Type.Array(Type.String(), { description: 'city ids' })),
  country_in: Type.Optional(Type.Array(Type.String(), { description: 'country ids or two-letter codes' })),
  category_in: Type.Optional(Type.Array(Type.String(), { description: 'category ids or codes' })),
  temporary: Type.Optional(Type.Enum(['YES', 'NO'])),
  listtypes: Type.Optional(Type.Array(Type.String())),
});
const LIST_TYPE = { id: 1, name: 'Top picks' };

/** Editorial lists (derived from the catalog, see lists.ts): GET /lists, /lists/{id}, /list-types, /cities/{id}/lists. */
export default async function listsRoutes(app: FastifyInstance) {
  const { catalog } = app;
  const tags = ['lists'];
  const summary = (l: ListView, request: FastifyRequest) => {
    const lang = request.service.locale.language;
    return {
      id: l.id,
      title: tr(l.title, lang),
      subtitle: tr(l.city.headline, lang),
      description: tr(l.city.content, lang),
      temporary: false,
      url: `${l.city.url}lists/${l.id}/`,
      list_type: LIST_TYPE,
      items_count: { musement: l.activities.length, thirdparty: 0, generic: 0 },
      city: renderCity(l.city, catalog, lang),
      category: renderCategory(l.category, lang),
      cover_image_url: l.category.cover_image_url,
      verticals: [],
    };
  };

  app.get<{ Querystring: Static<typeof ListQuery> }>('/lists', { serializerCompiler: asBuilt, schema: { tags, summary: 'Lists', querystring: ListQuery, response: { 200: Type.Array(ListSchema) } } }, async (request) => {
    const q = request.query;
    const cities = listParam(q.city_in);
    const countries = listParam(q.country_in).map((c) => c.toUpperCase());
    const categories = listParam(q.category_in);
    const types = listParam(q.listtypes);
    const found = listsOf(catalog).filter((l) => {
      const country = catalog.countryById.get(l.city.country_id);
      return (
        (!cities.length || cities.includes(String(l.city.id))) &&
        (!countries.length || countries.includes(String(l.city.country_id)) || countries.includes(country?.iso_code ?? '')) &&
        (!categories.length || categories.includes(String(l.category.id)) || categories.includes(l.category.code)) &&
        q.temporary !== 'YES' &&
        (!types.length || types.includes(String(LIST_TYPE.id)))
      );
    });
    return page(found, q).map((l) => summary(l, request));
  });

  app.get<{ Params: Static<typeof Id> }>('/lists/:listId', { schema: { tags, summary: 'One list with its activities', params: Id, response: { 200: ListWithItemsSchema } } }, async (request, reply) => {
    const l = listsOf(catalog).find((x) => x.id === request.params.listId);
    if (!l) throw errors.notFound(`List ${clip(request.params.listId)} does not exist`);
    const lang = request.service.locale.language;
    const items = l.activities.slice(0, 20);
    const events = JSON.parse(app.activityBodies.list(items, request)) as unknown[];
    const body = { ...summary(l, request), items: items.map((a, i) => ({ id: a.id, public_type: 'event', title: tr(a.title, lang), event: events[i] })) };
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(body));
  });

  app.get('/list-types', { serializerCompiler: asBuilt, schema: { tags, summary: 'Types of lists', response: { 200: Type.Array(ListTypeSchema) } } }, async () => [LIST_TYPE]);

  app.get<{ Params: { cityId: number }; Querystring: Static<typeof PagingQuery> }>(
    '/cities/:cityId/lists',
    { serializerCompiler: asBuilt, schema: { tags: ['cities'], summary: "A city's lists", params: Type.Object({ cityId: Type.Integer({ minimum: 1 }) }), querystring: PagingQuery, response: { 200: Type.Array(ListSchema) } } },
    async (request) => {
      if (!catalog.cityById.has(request.params.cityId)) throw errors.notFound(`City ${clip(request.params.cityId)} does not exist`);
      return page(listsOf(catalog).filter((l) => l.city.id === request.params.cityId), request.query).map((l) => summary(l, request));
    },
  );
}
