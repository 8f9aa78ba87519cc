import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Store } from '../store/index.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * false: the route reads no application state (the catalog), so a store shared by several
     * instances is not asked for it; a bearer token still is (its check reads the state).
     */
    readsState?: boolean;
  }
}

/**
 * For a store shared by several instances (one with sync()), an onRequest hook of the partner API:
 * brings the request's application up to the database before the token check and the handler read
 * it, so a request sees every write acknowledged before it began, on any instance. Registered after
 * service-headers (which names the application), before auth. Null for the file store: no hook at all.
 */
export function syncApplicationHook(store: Store): onRequestHookHandler | null {
  if (!store.sync) return null;
  const sync = store.sync.bind(store);
  // A callback hook: the catalog's requests, which skip it, pay no promise.
  return (request, _reply, done) => {
    const config = request.routeOptions.config;
    if (config.readsState === false && (request.headers.authorization === undefined || config.ignoreBearer)) return done();
    const pending = sync(request.service.application);
    if (pending) pending.then(() => done(), done);
    else done();
  };
}

/** The same for the control API and other views across applications: syncAll(), except where `skip` says. */
export function syncAllHook(store: Store, skip: (request: FastifyRequest) => boolean = () => false): onRequestHookHandler | null {
  if (!store.syncAll) return null;
  const syncAll = store.syncAll.bind(store);
  return (request, _reply, done) => {
    if (skip(request)) return done();
    const pending = syncAll();
    if (pending) pending.then(() => done(), done);
    else done();
  };
}
