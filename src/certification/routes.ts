import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { errorResponses, errors } from '../http/errors.js';
import { runView } from './record.js';
import { VALIDITY_DAYS } from './runs.js';

const Start = Type.Object({ application: Type.String({ minLength: 1, maxLength: 200, description: 'the application to certify' }) }, { additionalProperties: false });
const Id = Type.Object({ id: Type.String({ description: 'the run id POST /__admin/certifications answered' }) });
const Own = Type.Object({ application: Type.Optional(Type.String({ description: 'only a run of this application (a partner token sets its own)' })) }, { additionalProperties: false });
const Answer = Type.Object(
  { requirement: Type.String({ description: 'the id of a requirement that asks a question' }), answer: Type.String({ minLength: 1, maxLength: 200 }), application: Type.Optional(Type.String()) },
  { additionalProperties: false },
);

/** What the certification needs and the server was started without. */
function certification(app: FastifyInstance) {
  if (!app.certification) throw errors.reportOff();
  return app.certification;
}

/**
 * POST, GET and DELETE /__admin/certifications (docs/certification.md): runs of the suite, their
 * answers and their certificates. Each route takes an `application`, so that a partner's token acts
 * on its own application's runs only (admin/scope.ts).
 */
export default async function certificationRoutes(app: FastifyInstance) {
  const view = (run: Parameters<typeof runView>[0]) => runView(run, certification(app).suite, app.config.headerPrefix);
  const gone = errorResponses({ 404: 'No such run (or not this application\'s)', 409: 'The server was started with --report off' });

  app.post<{ Body: Static<typeof Start> }>('/certifications', {
    schema: {
      summary: 'Start a certification run for an application',
      description: 'Answers 201 with the run: every requirement of the suite with its instructions, its setup (the activity, lead booker e-mail, question, fault) and its status. The run arranges what it needs for this application only while it runs (scenarios on its bookings, one fault, one badly signed webhook). A run already running for the application ends.',
      body: Start,
      response: errorResponses({ 400: 'No application', 409: 'The server was started with --report off, which runs are judged on' }),
    },
  }, async (request, reply) => reply.code(201).send(view(await certification(app).start(request.body.application))));

  app.get<{ Querystring: Static<typeof Own> }>('/certifications', {
    schema: { summary: 'List certification runs', description: 'Newest first, of every application or of `application`: id, application, state and progress.', querystring: Own },
  }, async (request) => ({
    runs: (app.certification?.list(request.query.application) ?? []).map((r) => {
      const v = view(r);
      return { id: v.id, application: v.application, state: v.state, started_at: v.started_at, passed_at: v.passed_at, passed: v.passed, total: v.total };
    }),
  }));

  app.get<{ Params: Static<typeof Id>; Querystring: Static<typeof Own> }>('/certifications/:id', {
    schema: { summary: 'A certification run', description: 'The run with each requirement evaluated now: status (pending, passed, failed), evidence (request ids, deliveries, order items) and, while pending, what it waits for.', params: Id, querystring: Own, response: gone },
  }, async (request) => view(await certification(app).get(request.params.id, request.query.application)));

  app.delete<{ Params: Static<typeof Id>; Querystring: Static<typeof Own> }>('/certifications/:id', {
    schema: { summary: 'End a certification run', description: 'Its fault is disarmed and its scenarios no longer attach; the run stays listed as ended. Answers 204.', params: Id, querystring: Own, response: gone },
  }, async (request, reply) => {
    await certification(app).end(request.params.id, request.query.application);
    return reply.code(204).send();
  });

  app.post<{ Params: Static<typeof Id>; Body: Static<typeof Answer> }>('/certifications/:id/answers', {
    schema: {
      summary: "Answer a requirement's question",
      description: 'Body `{requirement, answer}`. The answer is checked against the sandbox\'s state (the voucher code, the item\'s status, the number of items): a wrong one fails the requirement for this run. Answers the run.',
      params: Id,
      body: Answer,
      response: errorResponses({ 400: 'The requirement asks no question', 404: 'No such run or requirement', 409: 'The run is not running, the requirement is decided, or its steps are not done yet' }),
    },
  }, async (request) => view(await certification(app).answer(request.params.id, request.body.requirement, request.body.answer, request.body.application)));

  app.get<{ Params: Static<typeof Id>; Querystring: Static<typeof Own> }>('/certifications/:id/certificate', {
    schema: {
      summary: 'The signed certificate of a run that passed',
      description: `A JWS (compact JWT, Ed25519, \`application/jwt\`) naming the suite and its version, the application, the API version its client sent, every requirement with its evidence ids, the issue and expiry times (${VALIDITY_DAYS} days) and the key id; the keys are at /.well-known/jwks.json. 409 with what is still missing until every requirement passed.`,
      params: Id,
      querystring: Own,
      response: errorResponses({ 404: 'No such run', 409: 'Not every requirement has passed' }),
    },
  }, async (request, reply) => reply.type('application/jwt').send(await certification(app).certificate(request.params.id, request.query.application)));
}

/** GET /.well-known/jwks.json: the public keys certificates are signed with, open to anyone who verifies one. */
export async function jwksRoute(app: FastifyInstance) {
  app.get('/.well-known/jwks.json', async (_request, reply) => {
    if (!app.certification) throw errors.reportOff();
    return reply.header('cache-control', 'public, max-age=300').send((await app.certification.keys()).jwks());
  });
}
