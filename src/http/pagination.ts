import { Type } from 'typebox';

/** limit/offset as the spec's Limits section and the reference's list endpoints define them. */
export function paging(defaultLimit = 10, maxLimit = 100) {
  return {
    limit: Type.Integer({ minimum: 1, maximum: maxLimit, default: defaultLimit, description: `items per page, at most ${maxLimit}` }),
    offset: Type.Integer({ minimum: 0, default: 0, description: 'items to skip' }),
  };
}

export function page<T>(items: readonly T[], q: { limit: number; offset: number }): T[] {
  return items.slice(q.offset, q.offset + q.limit);
}

/** A querystring of just limit and offset, with the usual defaults. */
export const PagingQuery = Type.Object(paging());
