import type { FastifyInstance } from 'fastify';
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
import listenRoutes from './listen.js';
import scenarioAdminRoutes, { scenarioRunRoutes } from './scenarios.js';
import { controlScope, isOpenControlRoute } from './scope.js';
import certificationRoutes from '../certification/routes.js';

/** The /__admin control plane: untagged, so it stays out of the partner docs. */
export default async function adminRoutes(app: FastifyInstance) {
  // With --admin-token: the admin token, or a partner's token for its own application (scope.ts).
  if (app.config.adminToken) {
    const scope = controlScope(app, app.config.adminToken);
    app.addHook('onRequest', scope.authenticate);
    app.addHook('preValidation', scope.narrow);
  }
  // A store shared by several instances: every view here may span applications (after the token check).
  const sync = syncAllHook(app.store, (request) => isOpenControlRoute(request.routeOptions.url ?? '', app.prefix));
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
  await app.register(listenRoutes);
  await app.register(scenarioAdminRoutes);
  await app.register(scenarioRunRoutes);
  await app.register(journalRoutes);
  await app.register(reportRoutes);
  await app.register(faultRoutes);
  await app.register(orderAdminRoutes);
  await app.register(clientRoutes);
  await app.register(certificationRoutes);
  await app.register(dashboardRoutes);
}
