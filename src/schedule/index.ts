import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../clock.js';
import type { Store } from '../store/index.js';
import { LocalScheduler } from './local.js';
import type { Scheduler } from './scheduler.js';
import { SharedScheduler } from './shared.js';

export type { Claim, DueHandler, Scheduler } from './scheduler.js';
export { SWEEP_EVERY_MS } from './window.js';

export interface ScheduleOptions {
  /** A claim's lease on a shared store: --lease-ms (config.leaseMs); default 30 s. */
  leaseMs?: number;
  /** How often a shared store's due work is looked for without being told; default 1 s. */
  pollMs?: number;
}

/** The scheduler a store needs: shared when the store keeps due work for several instances. */
export function createScheduler(store: Store, clock: Clock, now: (application: string) => Date, opts: ScheduleOptions & { warn?: (m: string) => void } = {}): Scheduler {
  const scheduler = store.due
    ? new SharedScheduler({ store, due: store.due, clock, now, leaseMs: opts.leaseMs, pollMs: opts.pollMs, warn: opts.warn })
    : new LocalScheduler({ clock, store });
  byStore.set(store, scheduler);
  return scheduler;
}

const byStore = new WeakMap<Store, Scheduler>();
/** For stores used without an app (unit tests of tokens or carts): the windows of one process. */
const fallback = new WeakMap<Store, Scheduler>();

/**
 * Whether the expired records of `kind` (tokens, carts) of an application are due for a sweep, and
 * if so notes it: sweeps ride along with a write of the same kind, at most every 10 minutes of its
 * time, on one instance, so that retention costs a write nothing most of the time.
 */
export function sweepDue(store: Store, application: string, kind: string, now: number): boolean {
  let s = byStore.get(store) ?? fallback.get(store);
  if (!s) fallback.set(store, (s = new LocalScheduler({ clock: { now: () => new Date(now), advance() {}, set() {}, offset: () => 0 }, store })));
  return s.sweepDue(application, kind, now);
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Where due work is claimed: webhook deliveries, scenario steps, retention sweeps. */
    scheduler: Scheduler;
  }
}

/** Decorates app.scheduler; it starts once the app is ready and ends before the store closes. */
async function schedulePlugin(app: FastifyInstance, opts: ScheduleOptions) {
  const scheduler = createScheduler(app.store, app.clock, (application) => app.now(application), { ...opts, warn: (m) => app.log.warn(m) });
  app.decorate('scheduler', scheduler);
  app.addHook('onReady', async () => scheduler.start());
  app.addHook('onClose', async () => scheduler.close());
}

export default fp(schedulePlugin, { name: 'schedule', dependencies: ['store'], fastify: '5.x' });
