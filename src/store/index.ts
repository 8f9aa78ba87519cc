import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { createStore as createFileStore } from './file/store.js';
import { isPostgresUrl } from './postgres/errors.js';
import type { Store, StoreOptions } from './types.js';

export { StoreError, LeaseLostError, type Store, type StoreOptions, type StoreStats, type DueTable, type DueRule, type DueTime, type DueRow, type DueClaim, type Lease } from './types.js';
export type { SharedJournal, SharedEntry, SharedListed, SharedDetail, SharedMessage } from './journal.js';
export type { State, Tenant, TokenRecord, DestinationChanges, ScenarioRunRecord, CartRecord, OrderRecord, DeliveryRecord, JournalEntry, WebhookConfig, FaultRecord, ListenerRecord } from './schema.js';

/** Which store runs: for health and the banner. */
export function storeKind(store: Store): 'file' | 'memory' | 'postgres' {
  return store.kind ?? (store.location === 'memory' ? 'memory' : 'file');
}

/**
 * Opens the state: `postgres://…` or `postgresql://…` selects the PostgreSQL store (src/store/postgres,
 * loaded only then), 'memory' the memory store, anything else the state file at that path (src/store/file).
 */
export async function createStore(db: string, opts: StoreOptions = {}): Promise<Store> {
  if (isPostgresUrl(db)) {
    const { createPostgresStore } = await import('./postgres/index.js');
    return createPostgresStore(db, opts);
  }
  return createFileStore(db, opts);
}

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
