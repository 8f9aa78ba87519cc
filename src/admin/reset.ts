import type { FastifyInstance } from 'fastify';
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
    { schema: { body: ResetBodySchema } },
    async (request) => {
      const application = request.body?.application;
      await app.store.reset(application);
      return { reset: application ?? 'all' };
    },
  );
}
