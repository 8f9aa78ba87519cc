import type { FastifyInstance } from 'fastify';
import currenciesRoutes from './currencies.routes.js';
import activitiesRoutes from './activities.routes.js';
import categoriesRoutes from './categories.routes.js';
import citiesRoutes from './cities.routes.js';
import countriesRoutes from './countries.routes.js';
import venuesRoutes from './venues.routes.js';
import metadataRoutes from './metadata.routes.js';
import datesRoutes from './dates.routes.js';
import activityInfoRoutes from './activity-info.routes.js';
import activityContentRoutes from './activity-content.routes.js';
import listsRoutes from './lists.routes.js';
import discoveryRoutes from './discovery.routes.js';
import deprecatedRoutes from './deprecated.routes.js';
import merchantTagsRoutes from './merchant-tags.routes.js';
import pickupsRoutes from './pickups.routes.js';

/** Every catalog resource's routes, registered under the base path with the header rules. */
export default async function catalogRoutes(app: FastifyInstance) {
  // The catalog is built from the seed: its routes read no application state unless they say so
  // (the destinations an application changed), and a shared store is not asked on their hot path.
  app.addHook('onRoute', (route) => {
    route.config = { readsState: false, ...route.config };
  });
  await app.register(currenciesRoutes);
  await app.register(activitiesRoutes);
  await app.register(categoriesRoutes);
  await app.register(citiesRoutes);
  await app.register(countriesRoutes);
  await app.register(venuesRoutes);
  await app.register(metadataRoutes);
  await app.register(datesRoutes);
  await app.register(activityInfoRoutes);
  await app.register(activityContentRoutes);
  await app.register(listsRoutes);
  await app.register(discoveryRoutes);
  await app.register(deprecatedRoutes);
  await app.register(merchantTagsRoutes);
  await app.register(pickupsRoutes);
}
