import type { FastifyInstance } from 'fastify';
import { errorResponses } from '../http/errors.js';
import { Type, type Static } from 'typebox';

const ResetBodySchema = Type.Union([
  Type.Object(
    { application: Type.Optional(Type.String({ minLength: 1, description: 'reset only this tenant' })) },
    { additionalProperties: false },
  ),
  Type.Null(),
]);

/** POST /__admin/reset: drops all mutable state, or one application's (body {application}). */
export default async function resetRoutes(app: FastifyInstance) {
  app.post<{ Body: Static<typeof ResetBodySchema> | undefined }>(
    '/reset',
    {
      schema: {
        summary: 'Drop mutable state',
        description: 'Orders, carts, tokens, deliveries, scenario runs, armed faults and the request journal: of every application, or only of `application`. The catalog stays.',
        body: ResetBodySchema,
        response: errorResponses({ 400: 'The body breaks its schema', 503: 'The state file did not take the write' }),
      },
    },
    async (request) => {
      const application = request.body?.application;
      await app.store.reset(application);
      // The server-wide faults are the server's state, which a reset keeps: a reset of everything drops them too.
      if (application === undefined) await app.faults.clear();
      return { reset: application ?? 'all' };
    },
  );
}
