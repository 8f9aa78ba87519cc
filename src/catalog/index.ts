import type { FastifyInstance } from 'fastify';
import currenciesRoutes from './currencies.routes.js';
import activitiesRoutes from './activities.routes.js';
import activityBodies from './activity-bodies.js';

/** Every catalog resource's routes, registered under the base path with the header rules. */
export default async function catalogRoutes(app: FastifyInstance) {
  await app.register(activityBodies);
  await app.register(currenciesRoutes);
  await app.register(activitiesRoutes);
}
