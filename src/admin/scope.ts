import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { tokenApplication } from '../auth/tokens.js';
import { FAILURE_BURST } from '../auth/failures.js';
import { clip, errors } from '../http/errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Who may call a control route besides the admin token: 'any' (a partner token too, nothing
     * application-specific: the scenario list, the event stream). Without it, a route that takes an
     * `application` (query or body) is open to a partner token for its own application, and any other
     * route is the admin token's only.
     */
    control?: 'any';
  }
  interface FastifyRequest {
    /** The control API's caller: null for the admin token (or a server without one), else the application of the partner token. */
    controlScope?: string | null;
  }
}

/** What a partner token may do with a control route, as the control API's document says it. */
export type PartnerAccess = 'open' | 'any' | 'own-application' | 'admin-only';

type Schemaish = { properties?: Record<string, unknown>; anyOf?: Schemaish[] } | undefined;
const takesApplication = (s: Schemaish): boolean => Boolean(s?.properties?.application) || Boolean(s?.anyOf?.some(takesApplication));

/** Where a route takes an `application`: its query, its body (the schema, or the document's only description of it). */
function applicationIn(route: Pick<RouteOptions, 'schema' | 'config'>): { query: boolean; body: boolean } {
  const schema = route.schema as { querystring?: Schemaish; body?: Schemaish } | undefined;
  const docs = (route.config as { docsOnly?: { querystring?: Schemaish; body?: Schemaish } } | undefined)?.docsOnly;
  return { query: takesApplication(schema?.querystring) || takesApplication(docs?.querystring), body: takesApplication(schema?.body) || takesApplication(docs?.body) };
}

/** Open routes need no token at all: health (load balancers) and the dashboard's static files. */
export const isOpenControlRoute = (url: string, prefix: string) => url === `${prefix}/health` || url === `${prefix}/ui` || url.startsWith(`${prefix}/ui/`);

export function partnerAccess(url: string, prefix: string, route: Pick<RouteOptions, 'schema' | 'config'>): PartnerAccess {
  if (isOpenControlRoute(url, prefix)) return 'open';
  if ((route.config as { control?: string } | undefined)?.control === 'any') return 'any';
  const where = applicationIn(route);
  return where.query || where.body ? 'own-application' : 'admin-only';
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * Who may call the control API when the server has an admin token (without one it is open, as on a
 * laptop): the admin token, for everything; or a partner's own access token (POST /login), bound to
 * its application A, for A only. A partner token's request is narrowed to A before validation: a
 * route's `application` (query or body) is set to A, another application's is a 404 that reveals
 * nothing about it, and a server-wide operation (no `application` to narrow) is a 403.
 * GET /__admin/events also takes the token as `?access_token=` (RFC 6750), since a browser's
 * EventSource cannot send headers. The admin token is compared as SHA-256 digests with
 * timingSafeEqual, a partner token is looked up in the application it names (app.tokenHolder): a
 * wrong token costs the same at any number of applications. An address that sent too many wrong
 * tokens waits (app.authFailures) before any token it sends is looked at. No answer echoes a token.
 */
export function controlScope(app: FastifyInstance, adminToken: string) {
  const expected = digest(adminToken);
  const prefix = app.prefix;
  // The application of a live partner token (on that application's own clock), or the 401: a token
  // that was issued says why it no longer works; a guessed one is a failure of its address.
  const partnerOf = async (request: FastifyRequest, token: string): Promise<string> => {
    const named = tokenApplication(token);
    if (named !== null) await app.store.sync?.(named);
    const holder = app.tokenHolder(token);
    if ('partner' in holder) return holder.application;
    if (holder.issued) throw errors.adminToken(true, holder.refused);
    app.authFailures.failed(request.ip);
    throw errors.adminToken(true);
  };
  const authenticate = async (request: FastifyRequest) => {
    const url = request.routeOptions.url ?? '';
    if (isOpenControlRoute(url, prefix)) return;
    const fromQuery = url === `${prefix}/events` ? (request.query as { access_token?: string }).access_token : undefined;
    const sent = fromQuery ?? /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(request.headers.authorization ?? '')?.[1];
    if (!sent) throw errors.adminToken(false);
    const wait = app.authFailures.wait(request.ip);
    if (wait > 0) throw errors.tooManyFailures(request.ip, FAILURE_BURST, wait);
    if (timingSafeEqual(digest(sent), expected)) {
      request.controlScope = null;
      return;
    }
    request.controlScope = await partnerOf(request, sent);
  };
  const narrow = async (request: FastifyRequest) => {
    const own = request.controlScope;
    if (own === null || own === undefined) return;
    const route = request.routeOptions;
    const access = partnerAccess(route.url ?? '', prefix, route as Pick<RouteOptions, 'schema' | 'config'>);
    if (access === 'open' || access === 'any') return;
    if (access === 'admin-only') throw errors.adminOnly();
    const where = applicationIn(route as Pick<RouteOptions, 'schema' | 'config'>);
    const pin = (holder: Record<string, unknown>) => {
      const asked = holder.application;
      if (asked !== undefined && asked !== own) throw errors.notFound(`Application "${clip(asked)}" is not this token's: a partner token acts on its own application only`);
      holder.application = own;
    };
    if (where.query) pin(request.query as Record<string, unknown>);
    if (where.body) {
      if (request.body === undefined || request.body === null) request.body = {};
      if (typeof request.body === 'object' && !Array.isArray(request.body)) pin(request.body as Record<string, unknown>);
    }
  };
  return { authenticate, narrow };
}
