// A store whose every write runs its function twice, the first run undone: what an optimistic
// write does when the database says the cached tenant was stale. A function that leaves something
// outside the tenant on its first run (a log line, an index entry, a value captured outside) shows
// it here.
import { copyData, track } from '../src/store/changes.js';
import type { Store, Tenant } from '../src/store/index.js';
import type { ServerState } from '../src/store/schema.js';

/**
 * Runs between the undone first run and the second, on the tenant the second run gets: what another
 * instance wrote meanwhile. Answers whether it applied (it is then used up), so that a write of
 * something else passes it by.
 */
export type Meanwhile = (application: string, tenant: Tenant) => boolean;

export interface RerunStore extends Store {
  /** Writes whose function ran twice. */
  readonly reruns: number;
  /** Changes to make between the two runs of the next write each applies to. */
  readonly meanwhile: Meanwhile[];
  /** The same for writes of the server-wide state. */
  readonly serverMeanwhile: Array<(server: ServerState) => boolean>;
}

export function rerunStore(inner: Store): RerunStore {
  const state = { reruns: 0, meanwhile: [] as Meanwhile[], serverMeanwhile: [] as RerunStore['serverMeanwhile'] };
  const between = <A extends unknown[]>(list: Array<(...a: A) => boolean>, ...args: A) => {
    const i = list.findIndex((m) => m(...args));
    if (i >= 0) list.splice(i, 1);
  };
  const update: Store['update'] = (application, fn, leases) =>
    inner.update(
      application,
      (t) => {
        // A first run that throws is a write that throws: it is not run again.
        const first = track(t);
        try {
          fn(first.proxy);
        } finally {
          first.rollback();
        }
        state.reruns++;
        between(state.meanwhile, application, t);
        return fn(t);
      },
      leases,
    );
  const updateServer: Store['updateServer'] = (fn) =>
    inner.updateServer((s) => {
      const before = copyData(s);
      const undo = () => {
        for (const k of Object.keys(s)) delete (s as unknown as Record<string, unknown>)[k];
        Object.assign(s, copyData(before) as ServerState);
      };
      try {
        fn(s);
      } finally {
        undo();
      }
      state.reruns++;
      between(state.serverMeanwhile, s);
      return fn(s);
    });
  return new Proxy(inner, {
    get(target, key) {
      if (key === 'update') return update;
      if (key === 'updateServer') return updateServer;
      if (key === 'reruns') return state.reruns;
      if (key === 'meanwhile') return state.meanwhile;
      if (key === 'serverMeanwhile') return state.serverMeanwhile;
      const v = Reflect.get(target, key, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  }) as RerunStore;
}
