import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { clip, errorResponses, errors } from '../http/errors.js';
import { checkReceiver, ReceiverUnreachable } from '../webhooks/check.js';
import { ChaosSchema, chaosConfig, MAX_CHAOS_APPLICATIONS } from '../webhooks/chaos.js';
import { webhookUrlProblem } from '../webhooks/url.js';
import { publicTargetProblem } from '../webhooks/guard.js';

const DeliveriesQuery = Type.Object(
  {
    order_item_uuid: Type.Optional(Type.String({ minLength: 1 })),
    application: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);

const Attempt = Type.Object({
  at: Type.String({ description: 'server-clock time' }),
  status_code: Type.Optional(Type.Integer({ description: "the receiver's answer" })),
  error: Type.Optional(Type.String({ description: 'why there was no answer' })),
  duration_ms: Type.Number(),
  chaos: Type.Optional(Type.String({ description: 'what chaos did on purpose: duplicate, reorder, delay, fail_first' })),
  headers: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'the headers sent: webhook-id, webhook-timestamp, webhook-signature and the vendor-prefixed ones (the signature is shown; the secret never is; Authorization masked); absent when no request was made' })),
});
const Wait = Type.Union([
  Type.Object({
    reason: Type.String({ enum: ['ordering', 'retry', 'no_receiver', 'receiver_down', 'chaos_delay', 'sending', 'due'] }),
    message: Type.String({ description: 'e.g. "waiting for version 1 of this order item to be delivered first (whd_…: next attempt at … (attempt 2 of 6))"' }),
    next_attempt_at: Type.Union([Type.String(), Type.Null()]),
    after: Type.Union([Type.String(), Type.Null()], { description: 'ordering: the delivery that goes first' }),
  }),
  Type.Null(),
], { description: 'why a pending delivery waits, computed when asked; null once delivered or failed' });
const Delivery = Type.Object({
  id: Type.String(),
  application: Type.String(),
  order_uuid: Type.String(),
  order_item_uuid: Type.String(),
  order_item_version: Type.Integer(),
  payload: Type.Object({}, { additionalProperties: true, description: 'the "Update order item" body, as sent' }),
  attempts: Type.Array(Attempt),
  state: Type.String({ enum: ['pending', 'delivered', 'failed'] }),
  next_attempt_at: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
  seq: Type.Integer(),
  round_start: Type.Integer({ description: 'attempts before this index belong to earlier rounds (redeliver)' }),
  target: Type.Optional(Type.String({ enum: ['listener'], description: "'listener': relayed to the application's mock-server listen; absent: its receiver" })),
  from_status: Type.Optional(Type.String({ description: "the item's status before the move" })),
  waiting: Wait,
});

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

const OnlyApplication = Type.Object({ application: Type.Optional(Type.String({ minLength: 1, description: 'only this application' })) }, { additionalProperties: false });

const ConfigBody = Type.Object(
  {
    url: Type.Union([Type.String({ minLength: 1 }), Type.Null()], { description: 'http(s) URL; user:password sends Basic credentials; null drops the setting (back to the server-wide receiver, or to --webhook-url)' }),
    secret: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()], { description: 'absent or null: signed with --webhook-secret when the server has one' })),
    application: Type.Optional(Type.String({ minLength: 1, description: 'only this application; absent: all of them' })),
  },
  { additionalProperties: false },
);

const ChaosBody = Type.Object(
  { ...ChaosSchema.properties, application: Type.Optional(Type.String({ minLength: 1, description: 'only this application; absent: all of them' })) },
  { additionalProperties: false },
);

const CheckBody = Type.Object(
  {
    url: Type.Optional(Type.String({ minLength: 1, description: 'the receiver; absent: the one configured for the application (or for all)' })),
    secret: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()], { description: 'absent with no url: the configured one' })),
    basic: Type.Optional(Type.String({ pattern: '^[^:]+:.+$', description: 'user:password' })),
    application: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);

/** Control endpoints of the webhook dispatcher: the delivery log, redeliver, per-application URL and secret. */
export default async function webhookAdminRoutes(app: FastifyInstance) {
  // On a shared sandbox a partner's token may point receivers and checks at public addresses only
  // (not its own network, not the metadata service), unless --allow-private-receivers says otherwise.
  const guarded = (request: FastifyRequest) => Boolean(request.controlScope) && app.config.shared && !app.config.allowPrivateReceivers;
  const partnerTargetProblem = (request: FastifyRequest, url: string) => (guarded(request) ? publicTargetProblem(url) : Promise.resolve(null));
  app.get<{ Querystring: Static<typeof DeliveriesQuery> }>(
    '/webhooks/deliveries',
    {
      config: { docsOnly: { response: { 200: Type.Object({ deliveries: Type.Array(Delivery) }) } } },
      schema: { summary: 'List webhook deliveries', description: 'With their payloads, their attempts and the headers each sent, and why a pending one waits; of an order item or an application when asked.', querystring: DeliveriesQuery, response: errorResponses({ 400: 'The query breaks its schema' }) },
    },
    async (request) => ({ deliveries: app.webhooks.views(request.query) }),
  );

  app.post<{ Params: Static<typeof IdParams>; Querystring: Static<typeof OnlyApplication> }>(
    '/webhooks/deliveries/:id/redeliver',
    { schema: { summary: 'Send a delivery again', description: 'The same delivery (same id) again, its retry schedule restarted; answers 202. `?application=` narrows the search to that application.', params: IdParams, querystring: OnlyApplication, response: errorResponses({ 404: 'No such delivery', 503: 'The state file did not take the write' }) } },
    async (request, reply) => {
      const only = request.query.application;
      if (only !== undefined && app.webhooks.get(request.params.id)?.application !== only) throw errors.notFound(`No webhook delivery ${clip(request.params.id)}`);
      const delivery = await app.webhooks.redeliver(request.params.id);
      return reply.code(202).send({ delivery: app.webhooks.view(delivery) });
    },
  );

  app.put<{ Body: Static<typeof ConfigBody> }>(
    '/webhooks/config',
    {
      schema: {
        summary: 'Set the webhook receiver',
        description:
          'URL and signing secret, of one application or of all (which drops the applications\' own). A receiver without its own secret is signed with --webhook-secret when the server has one. `url: null` drops the setting: an application goes back to the server-wide receiver, the server-wide receiver back to --webhook-url (or none).',
        body: ConfigBody,
        response: errorResponses({ 400: 'A bad URL, a secret without a URL, or a body that breaks its schema', 503: 'The state file did not take the write' }),
      },
    },
    async (request) => {
      const { url, secret, application } = request.body;
      const problem = url === null ? null : (webhookUrlProblem(url) ?? (await partnerTargetProblem(request, url)));
      if (problem) throw errors.validation(`body "url": ${problem}`);
      if (url === null && secret) {
        throw errors.validation('body "secret" needs a "url"');
      }
      await app.webhooks.configure(application, url === null ? null : { url, secret: secret ?? null }, request.controlScope ? 'partner' : 'admin');
      // What applies now: after `url: null`, the receiver it falls back to.
      const now = app.webhooks.receiver(application);
      return { application: application ?? null, ...(now ?? { url: null, source: null, set_at: null, signing: 'none', signed: false }) };
    },
  );

  // Chaos on live deliveries: per application, or (no application) for all.
  app.put<{ Body: Static<typeof ChaosBody> }>('/webhooks/chaos', {
    schema: {
      summary: 'Set webhook chaos',
      description: `Failures, delays, duplicates and reordering of live deliveries, of one application or of all. At most ${MAX_CHAOS_APPLICATIONS} applications have settings of their own.`,
      body: ChaosBody,
      response: errorResponses({ 400: 'The body breaks its schema', 409: `${MAX_CHAOS_APPLICATIONS} other applications have chaos settings already` }),
    },
  }, async (request) => {
    const { application, ...input } = request.body;
    if (!app.webhooks.chaos.canSet(application)) {
      throw errors.atCapacity(`${MAX_CHAOS_APPLICATIONS} applications have chaos settings, the most there can be: DELETE /__admin/webhooks/chaos?application=… drops one, without ?application= all`);
    }
    const config = chaosConfig(input);
    await app.webhooks.chaos.set(application, config);
    return { application: application ?? null, ...config };
  });
  app.get<{ Querystring: Static<typeof OnlyApplication> }>(
    '/webhooks/chaos',
    { schema: { summary: 'Read webhook chaos', description: "The setting for all applications and those of each one; with `?application=` only that application's own.", querystring: OnlyApplication, response: errorResponses({ 400: 'The query breaks its schema' }) } },
    async (request) => {
      const { '': all = null, ...applications } = app.webhooks.chaos.list();
      const only = request.query.application;
      if (only === undefined) return { all, applications };
      return { all: request.controlScope ? null : all, applications: only in applications ? { [only]: applications[only] } : {} };
    },
  );
  app.delete<{ Querystring: { application?: string } }>(
    '/webhooks/chaos',
    {
      schema: {
        summary: 'Drop webhook chaos',
        description: 'Of one application, or (no `application`) for all. Answers 204.',
        querystring: Type.Object({ application: Type.Optional(Type.String({ minLength: 1 })) }, { additionalProperties: false }),
        response: errorResponses({ 400: 'The query breaks its schema' }),
      },
    },
    async (request, reply) => {
      await app.webhooks.chaos.clear(request.query.application);
      return reply.code(204).send();
    },
  );

  // The receiver check of `mock-server webhooks check`, on a given URL or on the configured receiver.
  app.post<{ Body: Static<typeof CheckBody> | undefined }>('/webhooks/check', {
    schema: {
      summary: 'Check a webhook receiver',
      description: 'Sends a signed test event to `url` or to the configured receiver and says how it answered.',
      body: Type.Optional(CheckBody),
      response: errorResponses({ 400: 'No receiver to check, a bad URL, or a body that breaks its schema', 502: 'The receiver did not answer' }),
    },
  }, async (request) => {
    const body = request.body ?? {};
    const configured = body.application !== undefined ? app.webhooks.target(body.application) : app.webhooks.defaultTarget();
    const url = body.url ?? configured?.url;
    if (!url) throw errors.validation(`body "url" is needed: no receiver is configured${body.application ? ` for application "${clip(body.application)}"` : ''}`);
    const problem = webhookUrlProblem(url) ?? (await partnerTargetProblem(request, url));
    if (problem) throw errors.validation(`body "url": ${problem}`);
    const secret = body.secret !== undefined ? body.secret : body.url === undefined ? (configured?.secret ?? null) : null;
    try {
      const { timeoutMs, deadlineMs } = app.webhooks.sender;
      return await checkReceiver({ url, secret, basic: body.basic ?? null, headerPrefix: app.config.headerPrefix, timeoutMs, deadlineMs, publicOnly: guarded(request) && (body.url !== undefined || configured?.publicOnly === true) });
    } catch (e) {
      if (e instanceof ReceiverUnreachable) throw errors.receiverUnreachable(e.message);
      throw e;
    }
  });

  app.get<{ Querystring: Static<typeof OnlyApplication> }>('/webhooks/config', {
    schema: {
      summary: 'Read the webhook receivers',
      description:
        "The server-wide receiver and those of each application (with `?application=`, only that application's own), and `listeners` (each `mock-server listen`: its application, null for all, whether it is connected, since when, its status filter and where it forwards), URLs without credentials, each with where it comes from (`source`: `flag` for --webhook-url, `stored` for a PUT, with `set_at`) and how it is signed (`signing`: `own` secret, `server` (--webhook-secret) or `none`). A partner's token sees its own application's receiver only.",
      querystring: OnlyApplication,
      response: errorResponses({ 400: 'The query breaks its schema' }),
    },
  }, async (request) => {
    const all = app.webhooks.receivers();
    const only = request.query.application;
    // Listeners of mock-server listen: delivery targets beside the receivers.
    const listeners = app.webhooks.listeners.describe().filter((l) => only === undefined || l.application === only || (l.application === null && !request.controlScope));
    if (only === undefined) return { ...all, listeners };
    const own = all.applications[only];
    return { default: request.controlScope ? null : all.default, applications: own ? { [only]: own } : {}, listeners };
  });
}
