import { createHash, timingSafeEqual } from 'node:crypto';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors, type ApiError } from '../http/errors.js';
import type { Partner } from '../http/service-headers.js';
import { loadClients, SCOPES, type Scope } from './clients.js';
import loginRoutes from './login.routes.js';
import { ClientRegistry } from './registry.js';
import { checkToken, type TokenHolder, type TokenRefusal } from './tokens.js';
import { AuthFailures, FAILURE_BURST } from './failures.js';

export { SANDBOX_CLIENT, SCOPES, FixtureError, type Client, type Scope } from './clients.js';
export type { TokenHolder, TokenRefusal } from './tokens.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route reads no bearer token (POST /login must work with an expired one in the header). */
    ignoreBearer?: boolean;
  }
  interface FastifyInstance {
    /** The OAuth clients POST /login accepts: registered partners, and (unless --shared) the sandbox client and the fixture clients. */
    partners: ClientRegistry;
    /**
     * Who a partner's access token stands for (the application it is bound to, and the partner), or
     * why it is refused (in words for a 401, and whether it was issued or guessed). The one check of
     * a token: the partner API's (with `application`, its header: a token of another application is
     * refused), the control API's, and any other way in that takes one. Costs the same at any
     * number of applications. A store shared by instances must have synced the token's application
     * first (tokenApplication names it).
     */
    tokenHolder(token: string, application?: string): TokenHolder | TokenRefusal;
    /** Failed authentications per source address, for the partner API and the control API alike. */
    authFailures: AuthFailures;
  }
}

/** Decorates app.partners, app.tokenHolder and app.authFailures at the root: the partner API and the control API share them. */
export const clientsPlugin = fp(
  async (app: FastifyInstance) => {
    const partners = new ClientRegistry(app.store, await loadClients(app.config.fixtures, app.config.shared), app.config.shared);
    app.decorate('partners', partners);
    app.decorate('tokenHolder', (token: string, application?: string) => {
      const holder = checkToken(app.store, (a) => app.now(a), token, application);
      // A token outlives nothing its client lost: a fixture client turned off by --shared since.
      if ('partner' in holder && !partners.find(holder.partner.clientId)) return { refused: 'Access token of a client this sandbox no longer accepts: call POST /login with your own', issued: true };
      return holder;
    });
    app.decorate('authFailures', new AuthFailures(app.clock));
  },
  { name: 'clients', fastify: '5.x', dependencies: ['store'] },
);

const BEARER = /^Bearer[ \t]+([A-Za-z0-9\-._~+/]+=*)[ \t]*$/i;

/** The operator (the admin token) on the partner API of a shared sandbox: every scope, any application. */
const OPERATOR: Partner = Object.freeze({ clientId: 'operator', scopes: [...SCOPES] });

/**
 * Whether a route touches its application's state: everything but the catalog's reads, which say
 * readsState: false. An unknown URL (no route) touches nothing: it is a 404 for everyone.
 */
const touchesState = (request: FastifyRequest): boolean => request.routeOptions.url !== undefined && request.routeOptions.config.readsState !== false;

/**
 * Partner authentication for the scope that registers it (the partner API, after service-headers):
 * /login issues tokens; on every other request a valid `Authorization: Bearer` sets
 * request.service.partner, a bad one is 401, no header leaves the request anonymous. In a shared
 * sandbox (--shared) this is the one place that keeps each application's state to whoever holds a
 * token bound to it: a request that touches state without one is 401, whatever the route; and the
 * operator's admin token acts for any application.
 */
async function auth(app: FastifyInstance) {
  const { shared, adminToken } = app.config;
  const operator = shared && adminToken !== null ? createHash('sha256').update(adminToken).digest() : null;
  const isOperator = (token: string) => operator !== null && timingSafeEqual(createHash('sha256').update(token).digest(), operator);
  const authenticate = (request: FastifyRequest): void => {
    const header = request.headers.authorization;
    // /login and /refresh take credentials, not a token.
    const ignoreBearer = request.routeOptions.config.ignoreBearer;
    if (shared && (header !== undefined || ignoreBearer)) {
      const wait = app.authFailures.wait(request.ip);
      if (wait > 0) throw errors.tooManyFailures(request.ip, FAILURE_BURST, wait);
    }
    if (ignoreBearer) return;
    const { application } = request.service;
    if (header === undefined) {
      if (shared && touchesState(request)) throw errors.sharedNeedsToken(application);
      return;
    }
    const m = BEARER.exec(header);
    if (!m?.[1]) throw errors.invalidToken('Authorization must be "Bearer <access_token>"');
    const holder = app.tokenHolder(m[1], application);
    if ('partner' in holder) request.service.partner = holder.partner;
    else if (isOperator(m[1])) request.service.partner = OPERATOR;
    else {
      // A token never issued is a guess; an expired one is a partner's that ran out.
      if (shared && !holder.issued) app.authFailures.failed(request.ip);
      throw errors.invalidToken(holder.refused);
    }
  };
  // A callback hook: no promise per request.
  app.addHook('onRequest', (request, _reply, done) => {
    try {
      authenticate(request);
    } catch (e) {
      return done(e as Error);
    }
    done();
  });
  // A 401 of /login or /refresh is a wrong client, secret or refresh token: a failure of its address.
  if (shared) {
    app.addHook('onResponse', (request, reply, done) => {
      if (reply.statusCode === 401 && request.routeOptions.config.ignoreBearer) app.authFailures.failed(request.ip);
      done();
    });
  }
  await app.register(loginRoutes);
}

export default fp(auth, { name: 'auth', fastify: '5.x', dependencies: ['service-headers', 'store', 'clients'] });

/** The authenticated partner, or 401 for an anonymous request. */
export function requirePartner(request: FastifyRequest): Partner {
  const partner = request.service.partner;
  if (!partner) throw errors.authenticationRequired();
  return partner;
}

/** The partner when its token has `scope`; otherwise `onMissing()` (default 403), or 401 when anonymous. */
export function requireScope(request: FastifyRequest, scope: Scope, onMissing?: () => ApiError): Partner {
  const partner = requirePartner(request);
  if (!partner.scopes.includes(scope)) throw onMissing ? onMissing() : errors.missingScope(scope);
  return partner;
}
