import type { FastifyInstance } from 'fastify';

/** The dashboard's topics that other instances can change. */
export interface Heard {
  requests: number;
  state: number;
}

/** How often an instance tells the others what changed on it, at most. */
const ANNOUNCE_MS = 250;

/**
 * On a store shared by several instances: counts the topics the other instances announce (the
 * dashboard's watcher compares them with its own counters), and tells them what changed here, in
 * one NOTIFY at most four times a second, outside any write's transaction: the journal once its
 * requests are in the database, the state once a write is committed. Nothing on the request path;
 * the file store has no such counters and nothing runs.
 */
export function liveTopics(app: FastifyInstance): Heard {
  const heard: Heard = { requests: 0, state: 0 };
  const store = app.store;
  if (!store.announce || !store.onAnnounce) return heard;
  store.onAnnounce((topics) => {
    for (const t of topics) if (t === 'requests' || t === 'state') heard[t]++;
  });
  const now = () => ({ requests: store.journal?.written ?? 0, state: store.stats.writes });
  let told = now();
  const timer = setInterval(() => {
    const at = now();
    const changed = (Object.keys(at) as Array<keyof Heard>).filter((k) => at[k] !== told[k]);
    told = at;
    if (changed.length > 0) store.announce?.(changed);
  }, ANNOUNCE_MS).unref();
  app.addHook('onClose', async () => clearInterval(timer));
  return heard;
}
