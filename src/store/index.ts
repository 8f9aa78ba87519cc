import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { Store } from './store.js';

export { sweepDue } from './retention.js';
export { createStore, StoreError, type Store, type StoreOptions, type StoreStats } from './store.js';
export type { State, Tenant, TokenRecord, DestinationChanges, ScenarioRunRecord, CartRecord, OrderRecord, DeliveryRecord, JournalEntry, WebhookConfig } from './schema.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Mutable state, per application: read with store.tenant(app), write with store.update(app, fn). */
    store: Store;
  }
}

export interface StorePluginOptions {
  store: Store;
}

/** Decorates app.store; closing the app flushes the state and folds the log into the state file. */
async function storePlugin(app: FastifyInstance, opts: StorePluginOptions) {
  app.decorate('store', opts.store);
  app.addHook('onClose', async () => {
    await opts.store.close();
  });
}

export default fp(storePlugin, { name: 'store', fastify: '5.x' });
