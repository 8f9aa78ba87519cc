import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import { Type } from 'typebox';
import { errorResponses } from '../http/errors.js';
import { VERSION } from '../version.js';
import { partnerAccess, type PartnerAccess } from './scope.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The control API's OpenAPI document (the partner API's is `swagger`). */
    adminSwagger: FastifyInstance['swagger'];
  }
  interface FastifyContextConfig {
    /**
     * Request schemas shown in the control API's document only, for a route that checks its input by
     * hand: they are never compiled, so validation stays the handler's. Likewise answers, for a route
     * whose answer is passed through as stored rather than serialized by a schema.
     */
    docsOnly?: { body?: unknown; querystring?: unknown; response?: Record<string, unknown> };
  }
}

/** `?application=`: what several control routes narrow to one application with. */
export const ApplicationQuery = Type.Object({ application: Type.Optional(Type.String({ description: 'only this application' })) });

/** The document's groups, in this order in Swagger UI; a route's group is the first segment of its path. */
const TAGS = [
  { name: 'health', description: 'Is the server up (open even with --admin-token)' },
  { name: 'clock', description: 'The server clock that token expiry, delays, retries and scenarios follow' },
  { name: 'reset', description: 'Drop mutable state' },
  { name: 'orders', description: 'See orders and move order items by hand' },
  { name: 'scenarios', description: 'Scripted order-item lifecycles' },
  { name: 'webhooks', description: 'Receivers, delivery log, redelivery and chaos' },
  { name: 'faults', description: 'Injected errors and delays on the partner API' },
  { name: 'requests', description: 'The journal of partner API requests' },
  { name: 'report', description: 'The integration report' },
  { name: 'clients', description: 'Partner clients registered for POST /login (a shared sandbox)' },
  { name: 'certifications', description: 'Certification runs of an integration, their questions and signed certificates' },
  { name: 'events', description: 'What changed, as server-sent events (the dashboard at /__admin/ui listens)' },
];
const TAG_OF_SEGMENT: Record<string, string> = { 'order-items': 'orders', listen: 'webhooks' };

/** GET /__admin/health is registered in admin/index.ts, which only registers: its words live here. */
const HEALTH = {
  summary: 'Server health',
  description:
    'Version, seed, uptime, which store runs (file, memory or postgres) with its counters, and for PostgreSQL whether the database answers: 503 when it does not, so that a load balancer stops sending traffic here. Open even with --admin-token, for container health checks and load balancers.',
};

/** What each operation's description says a partner's token may do with it. */
const PARTNER_NOTE: Record<PartnerAccess, string> = {
  open: 'Open: no token needed.',
  any: "A partner's access token may call it too.",
  'own-application': "A partner's access token may call it for its own application only: `application` is set to the token's, and another application's is a 404.",
  'admin-only': "Server-wide: the admin token only (a partner's access token gets 403).",
};

/** Where app.ts registers the control API. */
const ADMIN = '/__admin';

/**
 * The control API's own OpenAPI document and Swagger UI at /__admin/docs (JSON at /__admin/docs/json),
 * apart from the partner API's /docs. Registered in app.ts, at the top level and before the control
 * routes, so that:
 * - a second @fastify/swagger (decorator `adminSwagger`) sees every route and keeps those under
 *   /__admin but the dashboard's files; the routes stay untagged (the partner document hides untagged
 *   routes), their group is given here from the path;
 * - its Swagger UI, in a context of its own where `swagger` is that document (Swagger UI serves
 *   `fastify.swagger()`), is outside the /__admin context and so outside its --admin-token hook: a
 *   browser cannot send a bearer header to open a page. The document says which operations need the
 *   token (all but health) and Swagger UI's Authorize sends it on "Try it out".
 */
async function adminDocs(app: FastifyInstance) {
  const token = Boolean(app.config.adminToken);
  await app.register(swagger, {
    decorator: 'adminSwagger',
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'mock-server control API',
        version: VERSION,
        description:
          'Drive the mock server from tests: clock, reset, orders, scenarios, webhooks, faults, request journal and integration report. ' +
          'Errors answer {code, message}. The partner API is documented at /docs.' +
          (token
            ? " Every operation but GET /__admin/health needs Authorization: Bearer <admin token> (the server was started with --admin-token), or a partner's access token (POST /login) for the operations on its own application: each operation's x-partner-token says which."
            : ''),
      },
      tags: TAGS,
      ...(token
        ? {
            components: {
              securitySchemes: {
                AdminToken: {
                  type: 'http' as const,
                  scheme: 'bearer',
                  description: "The server's --admin-token (or MOCK_SERVER_ADMIN_TOKEN) value: every operation.",
                },
                PartnerToken: {
                  type: 'http' as const,
                  scheme: 'bearer',
                  description: "A partner's access token from POST /login: the operations marked x-partner-token own-application (on its own application only) or any.",
                },
              },
            },
          }
        : {}),
    },
    transform: ({ schema, url, route }) => {
      const own = (schema ?? {}) as FastifySchema & { response?: Record<string, unknown>; summary?: string };
      // Only the control API: not the partner API, not the docs, not the dashboard's files (a page).
      if (!url.startsWith(`${ADMIN}/`) || url === `${ADMIN}/ui` || url.startsWith(`${ADMIN}/ui/`)) return { schema: { ...own, hide: true }, url };
      const segment = url.slice(ADMIN.length + 1).split('/')[0] as string;
      const open = url === `${ADMIN}/health`;
      const docsOnly = (route.config as { docsOnly?: { body?: unknown; querystring?: unknown; response?: Record<string, unknown> } } | undefined)?.docsOnly ?? {};
      const docs: Record<string, unknown> = { ...(open && !own.summary ? HEALTH : {}), ...docsOnly, ...own, tags: [TAG_OF_SEGMENT[segment] ?? segment] };
      // An answer described for the document only: a response schema would also make Fastify serialize by it.
      if (docsOnly.response) docs.response = { ...docsOnly.response, ...own.response };
      if (token && !open) {
        // Which operations a partner's own access token may call, and how (scope.ts decides the same way).
        const access = partnerAccess(url, ADMIN, route as Pick<RouteOptions, 'schema' | 'config'>);
        docs['x-partner-token'] = access;
        docs.description = `${own.description ?? ''}${own.description ? '\n\n' : ''}${PARTNER_NOTE[access]}`;
        docs.security = access === 'admin-only' ? [{ AdminToken: [] }] : [{ AdminToken: [] }, { PartnerToken: [] }];
        docs.response = {
          ...own.response,
          ...errorResponses({ 401: 'No token, or neither the admin token nor a live partner token' }),
          ...(access === 'admin-only' ? errorResponses({ 403: "A partner's token: this operation is server-wide" }) : {}),
          ...(access === 'own-application' ? errorResponses({ 404: "A partner's token naming another application (nothing about it is revealed)" }) : {}),
        };
      }
      return { schema: docs as FastifySchema, url };
    },
  });
  await app.register(async (ui) => {
    ui.decorate('swagger', ui.adminSwagger);
    // The same look as the partner docs: no branding bar.
    await ui.register(swaggerUi, {
      routePrefix: `${ADMIN}/docs`,
      theme: { title: 'mock-server control API', css: [{ filename: 'mock-server.css', content: '.swagger-ui .topbar { display: none }' }] },
    });
  });
}

export default fp(adminDocs, { name: 'admin-docs', fastify: '5.x' });
