import { createHash, timingSafeEqual } from 'node:crypto';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors, type ApiError } from '../http/errors.js';
import type { Partner } from '../http/service-headers.js';
import { loadClients, SCOPES, type Scope } from './clients.js';
import loginRoutes from './login.routes.js';
import { ClientRegistry } from './registry.js';
import { checkToken } from './tokens.js';

export { SANDBOX_CLIENT, SCOPES, FixtureError, type Client, type Scope } from './clients.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route reads no bearer token (POST /login must work with an expired one in the header). */
    ignoreBearer?: boolean;
  }
  interface FastifyInstance {
    /** The OAuth clients POST /login accepts: registered partners, and (unless --shared) the sandbox client and the fixture clients. */
    partners: ClientRegistry;
  }
}

/** Decorates app.partners at the root: the partner API logs in with it, the control API registers partners in it. */
export const clientsPlugin = fp(
  async (app: FastifyInstance) => {
    app.decorate('partners', new ClientRegistry(app.store, await loadClients(app.config.fixtures, app.config.shared), app.config.shared));
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
    // /login and /refresh take credentials, not a token.
    if (request.routeOptions.config.ignoreBearer) return;
    const header = request.headers.authorization;
    const { application } = request.service;
    if (header === undefined) {
      if (shared && touchesState(request)) throw errors.sharedNeedsToken(application);
      return;
    }
    const m = BEARER.exec(header);
    if (!m?.[1]) throw errors.invalidToken('Authorization must be "Bearer <access_token>"');
    const partner = checkToken(app.store, app.now(application), application, m[1]);
    if (typeof partner !== 'string') request.service.partner = partner;
    else if (isOperator(m[1])) request.service.partner = OPERATOR;
    else throw errors.invalidToken(partner);
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
