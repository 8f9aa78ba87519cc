import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Tenant } from '../store/index.js';
import { errors } from './errors.js';

/** The collections whose records count toward an application's state (the small settings do not). */
const COUNTED = ['carts', 'orders', 'deliveries', 'scenario_runs', 'tokens'] as const;
/** How long a count of an application's records is trusted: counting is O(records), a write is not. */
const COUNT_TTL_MS = 1000;
/** Room made at the limit: down to this share of it, so that one clean-up serves many writes. */
const FREE_DOWN_TO = 0.9;

const count = (t: Readonly<Tenant>) => COUNTED.reduce((n, field) => n + Object.keys(t[field]).length, 0);

/** What a full application keeps, in words: "3 orders, 3 carts, 1 deliveries, 0 scenario runs, 2 live tokens". */
function kept(t: Readonly<Tenant>): string {
  const n = (k: (typeof COUNTED)[number]) => Object.keys(t[k]).length;
  return `${n('orders')} orders, ${n('carts')} carts, ${n('deliveries')} deliveries, ${n('scenario_runs')} scenario runs, ${n('tokens')} live tokens`;
}

/**
 * What a partner loses nothing by when its application is full, in the order it goes: its expired
 * tokens, then its carts never ordered, least recently changed first, until `excess` records went.
 */
function dispensable(t: Readonly<Tenant>, now: number, excess: number): { tokens: string[]; carts: string[] } {
  const tokens = Object.keys(t.tokens).filter((k) => Date.parse(t.tokens[k]?.expiresAt ?? '') <= now).slice(0, excess);
  const carts = Object.values(t.carts)
    .filter((c) => c.order_uuid === null)
    .sort((a, b) => String(a.updated_at).localeCompare(String(b.updated_at)))
    .slice(0, Math.max(0, excess - tokens.length))
    .map((c) => c.uuid);
  return { tokens, carts };
}

const adds = (request: FastifyRequest) => {
  const m = request.method;
  const url = request.routeOptions.url ?? '';
  return (m === 'POST' || m === 'PUT' || m === 'PATCH') && !url.endsWith('/login') && !url.endsWith('/refresh');
};

/**
 * A shared sandbox's state size per application (--state-limit, only with --shared). Past that many
 * records, a request that would add state (POST, PUT, PATCH; not /login, so that the partner can
 * still get a token to reset its application from the control API) first makes room with what the
 * partner loses nothing by: expired tokens, then carts never ordered, oldest first, down to 90% of
 * the limit. If that is not enough (orders and what belongs to them fill it), it is answered 429
 * with Retry-After naming what is kept, and nothing is written. Reads, deletes, cancellations and
 * resets go on. Counted at most once a second of the server clock per application. Only requests
 * authenticated for the application reach here (the auth plugin refuses the others), so nobody
 * fills another's state.
 */
export function stateLimit(app: FastifyInstance, max: number) {
  const counts = new Map<string, { records: number; at: number }>();
  const recordsOf = (application: string) => {
    const now = app.clock.now().getTime();
    const cached = counts.get(application);
    if (cached && now - cached.at < COUNT_TTL_MS) return cached.records;
    const records = count(app.store.tenant(application));
    if (counts.size >= 10_000) counts.clear();
    counts.set(application, { records, at: now });
    return records;
  };
  app.store.onReset((application) => (application === null ? counts.clear() : counts.delete(application)));

  /** Makes room in a full application; resolves with the 429 when there is none to make. */
  const makeRoom = async (application: string): Promise<Error | undefined> => {
    const excess = count(app.store.tenant(application)) - Math.floor(max * FREE_DOWN_TO);
    const drop = dispensable(app.store.tenant(application), app.now(application).getTime(), excess);
    if (drop.tokens.length + drop.carts.length > 0) {
      await app.store.update(application, (t) => {
        for (const k of drop.tokens) delete t.tokens[k];
        // Ordered since it was picked (another request, another instance): it stays.
        for (const k of drop.carts) if (t.carts[k]?.order_uuid === null) delete t.carts[k];
      });
    }
    counts.delete(application);
    return recordsOf(application) >= max ? errors.stateFull(application, kept(app.store.tenant(application)), max) : undefined;
  };

  // A callback hook: a write within the limit pays no promise.
  app.addHook('preHandler', (request, _reply, done) => {
    if (!adds(request)) return done();
    const application = request.service.application;
    if (recordsOf(application) < max) return done();
    makeRoom(application).then((refusal) => done(refusal), done);
  });
}
