import type { FastifyInstance } from 'fastify';
import { errorResponses } from '../http/errors.js';
import { MAX_FAULT_PATH, MAX_FAULTS, MAX_SERVER_FAULTS } from '../http/faults.js';
import { Type, type Static } from 'typebox';

// method, path and status are checked by app.faults.add(), with messages that say what would work.
const FaultBody = Type.Object(
  {
    method: Type.String({ description: 'GET, POST, … or *' }),
    path: Type.String({ minLength: 1, description: `a path under the base path (or the full path), at most ${MAX_FAULT_PATH} characters; * matches any run of characters, / included` }),
    status: Type.Integer({ description: '400..599' }),
    times: Type.Integer({ minimum: 1, maximum: 100000, default: 1 }),
    delay_ms: Type.Integer({ minimum: 0, maximum: 60000, default: 0 }),
    application: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "only this application's requests; absent: every application's" })),
  },
  { additionalProperties: false },
);

const FaultsQuery = Type.Object({ application: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "only this application's own faults (and, when listing, the server-wide ones that also apply to it)" })) }, { additionalProperties: false });

/** POST, GET and DELETE /__admin/faults. */
export default async function faultRoutes(app: FastifyInstance) {
  app.post<{ Body: Static<typeof FaultBody> }>(
    '/faults',
    {
      schema: {
        summary: 'Inject a fault',
        description: `The next \`times\` partner requests matching \`method\` and \`path\` (of \`application\` only, when given) answer \`status\` (after \`delay_ms\`). Answers 201 with the fault. It is kept with the state: a restart keeps it, and every instance sharing a database applies it. At most ${MAX_FAULTS} faults are armed at once for one application, ${MAX_SERVER_FAULTS} for every application.`,
        body: FaultBody,
        response: errorResponses({ 400: 'A bad method, path or status, or a body that breaks its schema', 409: 'As many faults are armed already as there can be', 503: 'The state did not take the write' }),
      },
    }, async (request, reply) => {
    const b = request.body;
    return reply.code(201).send(await app.faults.add({ application: b.application ?? null, method: b.method, path: b.path, status: b.status, times: b.times, delay_ms: b.delay_ms }));
  });
  app.get<{ Querystring: Static<typeof FaultsQuery> }>(
    '/faults',
    { schema: { summary: 'List the faults still armed', description: 'All of them, or with `?application=` those that apply to its requests: its own and the server-wide ones.', querystring: FaultsQuery, response: errorResponses({ 400: 'The query breaks its schema' }) } },
    async (request) => ({ faults: app.faults.list(request.query.application) }),
  );
  app.delete<{ Querystring: Static<typeof FaultsQuery> }>(
    '/faults',
    { schema: { summary: 'Drop faults', description: "Every fault, or with `?application=` that application's own. Answers 204.", querystring: FaultsQuery, response: errorResponses({ 400: 'The query breaks its schema', 503: 'The state did not take the write' }) } },
    async (request, reply) => {
      await app.faults.clear(request.query.application);
      return reply.code(204).send();
    },
  );
}
