import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors, type ApiError } from '../http/errors.js';
import type { Partner } from '../http/service-headers.js';
import { loadClients, type Scope } from './clients.js';
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
    /** The OAuth clients POST /login accepts: fixtures, the sandbox client (unless --shared), registered partners. */
    partners: ClientRegistry;
  }
}

/** Decorates app.partners at the root: the partner API logs in with it, the control API registers partners in it. */
export const clientsPlugin = fp(
  async (app: FastifyInstance) => {
    app.decorate('partners', new ClientRegistry(app.store, await loadClients(app.config.fixtures), app.config.shared));
  },
  { name: 'clients', fastify: '5.x', dependencies: ['store'] },
);

const BEARER = /^Bearer[ \t]+([A-Za-z0-9\-._~+/]+=*)[ \t]*$/i;

/**
 * Partner authentication for the scope that registers it (the partner API, after service-headers):
 * /login issues tokens; on every other request a valid `Authorization: Bearer` sets
 * request.service.partner, a bad one is 401, no header leaves the request anonymous.
 */
async function auth(app: FastifyInstance) {
  const authenticate = (request: FastifyRequest): void => {
    const header = request.headers.authorization;
    if (header === undefined || request.routeOptions.config.ignoreBearer) return;
    const m = BEARER.exec(header);
    if (!m?.[1]) throw errors.invalidToken('Authorization must be "Bearer <access_token>"');
    const partner = checkToken(app.store, app.now(request.service.application), request.service.application, m[1]);
    if (typeof partner === 'string') throw errors.invalidToken(partner);
    request.service.partner = partner;
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
