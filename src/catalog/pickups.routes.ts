import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { clip, errors } from '../http/errors.js';
import { page, paging } from '../http/pagination.js';
import type { PickupRecord } from '../seed/types.js';
import { listParam } from './search.js';
import { asBuilt } from '../http/as-built.js';
import { PickupSchema } from './content.schemas.js';

const Query = Type.Object({
  ...paging(50, 50),
  text: Type.Optional(Type.String({ description: 'part of the name, at least 3 characters' })),
  type_in: Type.Optional(Type.Array(Type.String(), { description: 'HOTEL, PICKUP (comma-separated)' })),
  sort_by: Type.Optional(Type.Array(Type.String(), { description: 'type or -type' })),
  source: Type.Optional(Type.Enum(['GIATA-CODE', 'CONTENT-MANAGER-DATA', 'SUPPLIER'], { description: 'where the tags searched by text come from (pickups here have no tags)' })),
});
const Params = Type.Object({ activityPickupUuid: Type.String() });
const TYPES = ['HOTEL', 'PICKUP'];

const view = (p: PickupRecord) => ({ ...p, tags: [] });

/** GET /pickups and /pickups/{uuid}: the pickup points of every activity, as the reference has them. */
export default async function pickupsRoutes(app: FastifyInstance) {
  const tags = ['pickups'];
  const all = [...new Map(app.catalog.activities.flatMap((a) => a.booking.pickups).map((p) => [p.uuid, p])).values()];

  app.get<{ Querystring: Static<typeof Query> }>('/pickups', { serializerCompiler: asBuilt, schema: { tags, summary: 'Pickup points of every activity', querystring: Query, response: { 200: Type.Array(PickupSchema) } } }, async (request) => {
    const { text } = request.query;
    if (text !== undefined && text.trim().length < 3) throw errors.validation('querystring "text" needs at least 3 characters');
    const types = listParam(request.query.type_in).map((t) => t.toUpperCase());
    const badType = types.find((t) => !TYPES.includes(t));
    if (badType !== undefined) throw errors.outsideList('querystring', 'type_in', `querystring "type_in" items must be one of ${TYPES.join(', ')}, got "${clip(badType)}"`);
    const sort = listParam(request.query.sort_by);
    const badSort = sort.find((s) => s !== 'type' && s !== '-type');
    if (badSort !== undefined) throw errors.outsideList('querystring', 'sort_by', `querystring "sort_by" takes type or -type, got "${clip(badSort)}"`);
    const needle = text?.trim().toLowerCase();
    const list = all.filter((p) => (!needle || p.name.toLowerCase().includes(needle)) && (types.length === 0 || types.includes(p.type)));
    if (sort[0]) list.sort((a, b) => (sort[0] === '-type' ? -1 : 1) * a.type.localeCompare(b.type));
    return page(list, request.query).map(view);
  });

  // An array of one, as the reference's schema has it.
  app.get<{ Params: Static<typeof Params> }>('/pickups/:activityPickupUuid', { serializerCompiler: asBuilt, schema: { tags, summary: 'One pickup point, in an array of one', params: Params, response: { 200: Type.Array(PickupSchema) } } }, async (request) => {
    const p = all.find((x) => x.uuid === request.params.activityPickupUuid);
    if (!p) throw errors.notFound(`Pickup ${clip(request.params.activityPickupUuid)} does not exist`);
    return [view(p)];
  });
}
