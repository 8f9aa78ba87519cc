import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { SCOPES } from '../auth/clients.js';
import { clip, errorResponses, errors } from '../http/errors.js';

const RegisterBody = Type.Object(
  {
    applications: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 100, description: 'the application values (X-Service-Application) the client may log in with' }),
    scopes: Type.Array(Type.Union(SCOPES.map((s) => Type.Literal(s))), { maxItems: SCOPES.length, description: 'partner scopes granted to its tokens' }),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'who it is for, shown in the list' })),
  },
  { additionalProperties: false },
);

const ClientParams = Type.Object({ client_id: Type.String({ minLength: 1, maxLength: 200 }) });

/** Why `applications` is not a list of application names, or undefined (the schema checks the rest). */
function applicationsProblem(applications: unknown): Error | undefined {
  if (applications === undefined) return undefined;
  if (!Array.isArray(applications)) return errors.validation(`body "applications" must be an array of application names, e.g. ["acme-shop"], got ${clip(JSON.stringify(applications))}`);
  if (applications.includes('*')) return errors.validation('body "applications" lists application names: "*" is no wildcard here, a registered client logs in for the applications it names only');
  return undefined;
}

/**
 * Partner registration: POST /__admin/clients answers a client_id and client_secret for POST /login,
 * the secret only once (the store keeps its SHA-256); GET lists the registered clients without
 * secrets; DELETE revokes a client and every token it was given.
 */
export default async function clientRoutes(app: FastifyInstance) {
  app.post<{ Body: Static<typeof RegisterBody> }>(
    '/clients',
    {
      // Before validation, which coerces a lone string into an array (as it must for query strings):
      // "applications": "*" would be stored as ["*"], looking like a wildcard and matching nothing.
      preValidation: (request, _reply, done) => done(applicationsProblem((request.body as { applications?: unknown } | null)?.applications)),
      schema: {
        summary: 'Register a partner client',
        description: 'Answers 201 with `client_id` and `client_secret`, which POST /login takes for the listed applications only. The secret is shown this once: the store keeps only its digest.',
        body: RegisterBody,
        response: errorResponses({ 400: 'A body that breaks its schema', 503: 'The state file did not take the write' }),
      },
    },
    async (request, reply) => reply.code(201).header('cache-control', 'no-store').send(await app.partners.register(request.body, app.clock.now())),
  );
  app.get('/clients', { schema: { summary: 'List the registered partner clients', description: 'Without their secrets.' } }, async () => ({ clients: app.partners.list() }));
  app.delete<{ Params: Static<typeof ClientParams> }>(
    '/clients/:client_id',
    {
      schema: {
        summary: 'Revoke a partner client',
        description: 'The client can no longer log in, and every token it was given stops working at once. Answers 204.',
        params: ClientParams,
        response: errorResponses({ 404: 'No registered client with this id', 503: 'The state file did not take the write' }),
      },
    },
    async (request, reply) => {
      const { client_id } = request.params;
      if (!(await app.partners.revoke(client_id))) throw errors.notFound(`No registered client ${clip(client_id)}`);
      return reply.code(204).send();
    },
  );
}
