import type { Store } from './store.js';

/** How often, in server time, one application's records of one kind are swept for expired ones. */
const SWEEP_EVERY_MS = 10 * 60 * 1000;
const lastSweep = new WeakMap<Store, Map<string, number>>();

/**
 * Whether the expired records of `kind` (tokens, carts) of an application are due for a sweep, and
 * if so notes it: sweeps ride along with a write of the same kind, at most every 10 minutes of server
 * time, so that retention costs a write nothing most of the time.
 */
export function sweepDue(store: Store, application: string, kind: string, now: number): boolean {
  let seen = lastSweep.get(store);
  if (!seen) lastSweep.set(store, (seen = new Map()));
  const key = `${kind}\u0000${application}`;
  const last = seen.get(key);
  if (last !== undefined && Math.abs(now - last) < SWEEP_EVERY_MS) return false;
  seen.set(key, now);
  return true;
}
