import websocket from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import type { WebSocket } from 'ws';
import { clip, errorResponses, errors } from '../http/errors.js';
import { ORDER_ITEM_STATUSES, parseStatuses } from '../lifecycle/order-item-status.js';
import type { ListenerAnswer, ListenerConnection } from '../webhooks/listeners.js';

const ListenQuery = Type.Object(
  {
    application: Type.Optional(Type.String({ minLength: 1, description: "only this application's deliveries; absent: every application's (the admin token, or an open control API)" })),
    events: Type.Optional(Type.String({ description: `only these statuses, comma-separated (${ORDER_ITEM_STATUSES.join(', ')})` })),
    forward_to: Type.Optional(Type.String({ maxLength: 2000, description: 'where the listener forwards, for the dashboard' })),
  },
  { additionalProperties: false },
);
const SecretQuery = Type.Object({ application: Type.Optional(Type.String({ minLength: 1 })) }, { additionalProperties: false });

/** How often the server pings a listener; one that has not answered by the next ping is gone (a laptop asleep). */
const PING_MS = 15_000;

/**
 * GET /__admin/listen: the WebSocket of `mock-server listen`. The sandbox sends each delivery of
 * the application (or of all) as a message; the listener POSTs it to its local receiver and
 * answers on the same connection with the status and time, which the dispatcher records as the
 * attempt. WebSocket rather than server-sent events because the answer comes back on the
 * connection the delivery went out on: to the instance that is waiting for it, with no second
 * request to route across instances. A close with code 1000 and reason `stop` (Ctrl-C) ends the
 * listener; any other end keeps its place, and deliveries wait for it to come back.
 */
export default async function listenRoutes(app: FastifyInstance) {
  await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  const listeners = app.webhooks.listeners;

  app.get<{ Querystring: Static<typeof ListenQuery> }>('/listen', {
    websocket: true,
    schema: {
      summary: 'Relay deliveries to mock-server listen (WebSocket)',
      description:
        'A WebSocket: each of the application\'s deliveries arrives as `{type: "delivery", ref, id, application, order_item_uuid, order_item_version, from, status, body, headers}`; the listener POSTs `body` with `headers` to its local receiver and answers `{type: "result", ref, status_code | error, duration_ms}`, the attempt\'s outcome (only 200 counts; no answer within 10 s is a timeout). Deliveries made while no listener is connected wait and are retried on the schedule; when a listener connects they are sent at once, oldest first. A partner token listens to its own application only.',
      querystring: ListenQuery,
      response: errorResponses({ 400: 'An unknown status in `events`, or a query that breaks its schema' }),
    },
    preValidation: async (request) => {
      const bad = request.query.events === undefined ? undefined : parseStatuses(request.query.events).bad;
      if (bad !== undefined) throw errors.validation(`querystring "events": "${clip(bad)}" is not an order-item status (${ORDER_ITEM_STATUSES.join(', ')})`);
    },
  }, (socket: WebSocket, request) => {
    const application = request.query.application ?? null;
    const events = request.query.events ? parseStatuses(request.query.events).statuses : null;
    const connection: ListenerConnection = {
      send: (message) => socket.send(JSON.stringify(message)),
      close: (code, reason) => socket.close(code, reason),
    };
    let alive = true;
    socket.on('pong', () => (alive = true));
    const ping = setInterval(() => {
      if (!alive) return socket.terminate();
      alive = false;
      socket.ping();
    }, PING_MS);
    const renew = app.store.due ? setInterval(() => void listeners.renew(application).catch(() => undefined), 10_000) : null;
    socket.on('message', (data) => {
      let answer: ListenerAnswer;
      try {
        answer = JSON.parse(String(data)) as ListenerAnswer;
      } catch {
        return;
      }
      if (answer?.type === 'result' && typeof answer.ref === 'number') listeners.answer(connection, answer);
    });
    socket.on('close', (code, reason) => {
      clearInterval(ping);
      if (renew) clearInterval(renew);
      void listeners.disconnect(application, connection, code === 1000 && String(reason) === 'stop').catch((err: unknown) => app.log.warn({ err }, 'a listener\'s end was not recorded'));
    });
    // Signed from the first delivery on: an application without a secret gets one for its listener now.
    const ready = async () => {
      if (application !== null && !app.webhooks.secretOf(application)) await listeners.ensureSecret(application);
      await listeners.connect(application, connection, { events, forward_to: request.query.forward_to ?? null });
    };
    ready().then(
      () => connection.send({ type: 'hello', application, events }),
      (err: unknown) => {
        app.log.warn({ err }, 'a listener could not be registered');
        socket.close(1011, 'the listener could not be registered: try again');
      },
    );
  });

  app.get<{ Querystring: Static<typeof SecretQuery> }>('/listen/secret', {
    schema: {
      summary: 'The secret a listener\'s deliveries are signed with',
      description: 'An application\'s receiver secret (its own, else --webhook-secret); when it has none, one made for its listener (`whsec_…`, kept with its state). `mock-server listen --print-secret` shows it.',
      querystring: SecretQuery,
      response: errorResponses({ 400: 'No application named, and the server has no secret of its own' }),
    },
  }, async (request) => {
    const { application } = request.query;
    if (application === undefined) {
      const secret = app.webhooks.secretOf(null);
      if (!secret) throw errors.validation('querystring "application" is needed: the server has no --webhook-secret, so each application\'s listener signs with a secret of its own');
      return { application: null, secret, source: 'receiver' };
    }
    if (!app.webhooks.secretOf(application)) await listeners.ensureSecret(application);
    return { application, ...listeners.secret(application, app.webhooks.secretOf(application)) };
  });
}
