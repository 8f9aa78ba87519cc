import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../http/errors.js';
import { scenarioRunRoutes } from '../booking/scenario-runner.js';
import journalRoutes from './journal.js';
import reportRoutes from './report.js';
import dashboardRoutes from './dashboard.js';
import faultRoutes from './faults.js';
import orderAdminRoutes from './orders.js';
import { VERSION } from '../version.js';
import { storeKind } from '../store/index.js';
import { syncAllHook } from '../http/state-sync.js';
import clockRoutes from './clock.js';
import clientRoutes from './clients.js';
import resetRoutes from './reset.js';
import webhookAdminRoutes from './webhooks.js';
import scenarioAdminRoutes from './scenarios.js';

const digest = (s: string) => createHash('sha256').update(s).digest();
/**
 * With --admin-token, an onRequest hook on every /__admin route but GET /__admin/health (left open for
 * container health checks and load balancers; it shows only version, seed, uptime and store counters)
 * and the dashboard's static files (code, no state: the page asks for the token) that wants
 * `Authorization: Bearer <token>`. GET /__admin/events also takes it as `?access_token=` (RFC 6750),
 * since a browser's EventSource cannot send headers. Compared as SHA-256 digests with timingSafeEqual,
 * so neither the time taken nor the answer says how much of a wrong token was right; the answer never echoes it.
 */
function requireAdminToken(token: string, prefix: string) {
  const expected = digest(token);
  return async (request: FastifyRequest) => {
    const route = request.routeOptions.url ?? '';
    if (route === `${prefix}/health` || route === `${prefix}/ui` || route.startsWith(`${prefix}/ui/`)) return;
    const fromQuery = route === `${prefix}/events` ? (request.query as { access_token?: string }).access_token : undefined;
    const sent = fromQuery ?? /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(request.headers.authorization ?? '')?.[1];
    if (!sent) throw errors.adminToken(false);
    if (!timingSafeEqual(digest(sent), expected)) throw errors.adminToken(true);
  };
}

/** The /__admin control plane: untagged, so it stays out of the partner docs. */
export default async function adminRoutes(app: FastifyInstance) {
  if (app.config.adminToken) app.addHook('onRequest', requireAdminToken(app.config.adminToken, app.prefix));
  // A store shared by several instances: every view here may span applications (after the token check).
  const stateless = (route: string) => route === `${app.prefix}/health` || route === `${app.prefix}/ui` || route.startsWith(`${app.prefix}/ui/`);
  const sync = syncAllHook(app.store, (request) => stateless(request.routeOptions.url ?? ''));
  if (sync) app.addHook('onRequest', sync);
  app.get('/health', async (_request, reply) => {
    // A database that does not answer makes the instance unhealthy: a load balancer stops sending it traffic.
    const database = app.store.ping ? await app.store.ping().then(() => 'up' as const, () => 'down' as const) : undefined;
    if (database === 'down') reply.code(503);
    return {
      status: database === 'down' ? 'unavailable' : 'ok',
      version: VERSION,
      seed: app.config.seed,
      uptime_s: Math.round((Date.now() - app.startedAt) / 1000),
      // Which store, and counters for watching it at work (benchmarks, a long-running sandbox).
      store: { kind: storeKind(app.store), ...app.store.stats, ...(database ? { location: app.store.location, database } : {}) },
    };
  });
  await app.register(clockRoutes);
  await app.register(resetRoutes);
  await app.register(webhookAdminRoutes);
  await app.register(scenarioAdminRoutes);
  await app.register(scenarioRunRoutes);
  await app.register(journalRoutes);
  await app.register(reportRoutes);
  await app.register(faultRoutes);
  await app.register(orderAdminRoutes);
  await app.register(clientRoutes);
  await app.register(dashboardRoutes);
}
