import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { createStore as createFileStore, type Store as FileStore, type StoreOptions } from './store.js';
import type { ServerState } from './schema.js';
import { isPostgresUrl } from './postgres/errors.js';
import type { SharedJournal } from './journal.js';

export { sweepDue } from './retention.js';
export { StoreError, type StoreOptions, type StoreStats } from './store.js';
export type { SharedJournal, SharedEntry, SharedListed, SharedMessage } from './journal.js';
export type { State, Tenant, TokenRecord, DestinationChanges, ScenarioRunRecord, CartRecord, OrderRecord, DeliveryRecord, JournalEntry, WebhookConfig } from './schema.js';

/**
 * The store every route uses: the file store's interface (store.ts), plus what a store shared by
 * several instances needs. These are optional, and the file and memory stores leave them out: the
 * app adds its sync hooks only for a store that has them, so the embedded default pays nothing.
 */
export interface Store extends FileStore {
  /** 'postgres' for the PostgreSQL store; absent: the file store ('memory' when location is). */
  readonly kind?: 'postgres';
  /**
   * Brings the cached tenant up to the database (writes acknowledged on any instance before the call
   * are then visible to tenant()); rejects with a 503 error when the database does not answer.
   */
  sync?(application: string): Promise<void> | void;
  /** sync() of every application and of the server state: for views across applications. */
  syncAll?(): Promise<void> | void;
  /** Resolves when the database answers (health). */
  ping?(): Promise<void>;
  /** Told when a sync finds server state written by another instance (the clock follows it). */
  onServerChange?(listener: (server: Readonly<ServerState>) => void): void;
  /** The request journal of every instance; absent: each instance keeps its own in memory. */
  readonly journal?: SharedJournal;
  /** Tells the other instances which topics of the dashboard's live events changed here; best effort. */
  announce?(topics: string[]): void;
  /** Told of the topics another instance announced. */
  onAnnounce?(listener: (topics: string[]) => void): void;
}

/** Which store runs: for health and the banner. */
export function storeKind(store: Store): 'file' | 'memory' | 'postgres' {
  return store.kind ?? (store.location === 'memory' ? 'memory' : 'file');
}

/**
 * Opens the state: `postgres://…` or `postgresql://…` selects the PostgreSQL store (src/store/postgres,
 * loaded only then), 'memory' the memory store, anything else the state file at that path.
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
