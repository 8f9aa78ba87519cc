import type { FastifyInstance } from 'fastify';
import { scenarioRunRoutes } from '../booking/scenario-runner.js';
import journalRoutes from './journal.js';
import faultRoutes from './faults.js';
import orderAdminRoutes from './orders.js';
import { VERSION } from '../version.js';
import clockRoutes from './clock.js';
import resetRoutes from './reset.js';
import webhookAdminRoutes from './webhooks.js';
import scenarioAdminRoutes from './scenarios.js';

/** The /__admin control plane: untagged, so it stays out of the partner docs. */
export default async function adminRoutes(app: FastifyInstance) {
  app.get('/health', async () => ({
    status: 'ok',
    version: VERSION,
    seed: app.config.seed,
    uptime_s: Math.round((Date.now() - app.startedAt) / 1000),
  }));
  await app.register(clockRoutes);
  await app.register(resetRoutes);
  await app.register(webhookAdminRoutes);
  await app.register(scenarioAdminRoutes);
  await app.register(scenarioRunRoutes);
  await app.register(journalRoutes);
  await app.register(faultRoutes);
  await app.register(orderAdminRoutes);
}
