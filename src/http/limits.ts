import fp from 'fastify-plugin';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import { errors } from './errors.js';
import { stateLimit } from './state-limit.js';
import { FixedWindows } from './windows.js';

export interface LimitsOptions {
  /** Partner requests per second per application; 0: no limit. */
  perSecond: number;
  /** Records (carts, orders, deliveries, scenario runs, tokens) an application may keep; 0: no limit. */
  stateRecords: number;
}

/**
 * Who a request is charged to: the application its token is bound to (a partner's, or the
 * operator's admin token acting for it), else its source address. Naming an application in the
 * header charges nothing to it: requests without a token from one address share one account.
 */
const chargedTo = (request: FastifyRequest): string => (request.service.partner ? `app ${request.service.application}` : `ip ${request.ip}`);

declare module 'fastify' {
  interface FastifyRequest {
    /** Past the rate: ms until the application's window opens again. */
    rateLimitWait?: number;
  }
}

/** A shared sandbox's limits per application (--shared): its state size, its request rate, and turns. */
async function limits(app: FastifyInstance, opts: LimitsOptions) {
  if (opts.stateRecords > 0) stateLimit(app, opts.stateRecords);
  if (opts.perSecond > 0) await rateLimits(app, opts);
  fairTurns(app);
}

/**
 * A shared sandbox's request rate per application (--rate-limit, only with --shared): one noisy
 * partner cannot take the server's time from the others. @fastify/rate-limit, keyed by whom the
 * request is charged to (chargedTo: so it runs after the auth plugin's onRequest, at preParsing), in
 * memory: with several instances each counts its own share. Within the limit the answers carry no
 * extra headers, as the real API's; past it, 429 {code, message} with Retry-After.
 *
 * The 429 is sent when the application's window opens again (within a second), not at once: a
 * client that retries at once on every connection would otherwise turn cheap refusals into a flood
 * that takes the CPU from everyone else. Held, it sends at most one request per connection per
 * window.
 */
async function rateLimits(app: FastifyInstance, opts: LimitsOptions) {
  await app.register(rateLimit, {
    global: true,
    max: opts.perSecond,
    timeWindow: 1000, // clockStore's windows are of a second too
    store: clockStore(app.clock, 10_000),
    hook: 'preParsing',
    keyGenerator: chargedTo,
    addHeadersOnExceeding: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false },
    addHeaders: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': true, 'retry-after': true },
    errorResponseBuilder: (request, context) => {
      request.rateLimitWait = Math.min(context.ttl, 1000);
      const who = request.service.partner ? { application: request.service.application } : { address: request.ip };
      return errors.rateLimited(who, context.max, Math.max(1, Math.ceil(context.ttl / 1000)));
    },
  });
  // A callback hook: no promise on the requests within the limit.
  app.addHook('onSend', (request, _reply, payload, done) => {
    if (request.rateLimitWait === undefined) return done(null, payload);
    setTimeout(() => done(null, payload), request.rateLimitWait);
  });
}

/** @fastify/rate-limit's counters on the server clock (its own store reads Date.now(), which tests cannot move). */
function clockStore(clock: Clock, size: number) {
  return class ClockStore {
    readonly #windows = new FixedWindows(clock, 1000, size);

    incr(key: string, cb: (err: Error | null, res: { current: number; ttl: number }) => void): void {
      const { count, left } = this.#windows.hit(key);
      cb(null, { current: count, ttl: left });
    }

    child(): ClockStore {
      return new ClockStore();
    }
  };
}

/** How many requests of one application start in one turn of the event loop. */
const FAIR_TURN = 4;

/**
 * Applications take turns (only with --shared): in one turn of the event loop at most FAIR_TURN
 * requests of an application start; the rest wait, in order, for the next turns, and each turn the
 * waiting applications start FAIR_TURN each. An application is who the request is charged to
 * (chargedTo): requests without a token take the turns of their address, not of the application
 * they name. Between two turns Node reads the sockets again, so the request of a quiet application
 * is answered after at most a few of a noisy one's, not after every request the noisy one had sent
 * at once (in the tests, after 8 of 60 sent together rather than after all 60). One application
 * alone loses nothing but the turns: its requests still go one after another, as fast as the loop
 * turns.
 */
function fairTurns(app: FastifyInstance) {
  const started = new Map<string, number>();
  const waiting = new Map<string, Array<() => void>>();
  let scheduled = false;
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(turn);
  };
  function turn() {
    scheduled = false;
    started.clear();
    for (const [key, queue] of waiting) {
      const now = queue.splice(0, FAIR_TURN);
      if (queue.length === 0) waiting.delete(key);
      started.set(key, now.length);
      for (const go of now) go();
    }
    if (waiting.size > 0) schedule();
  }
  // A callback hook (after the auth plugin's onRequest): a request within its share of the turn pays no promise.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const key = chargedTo(request);
    const n = started.get(key) ?? 0;
    if (n < FAIR_TURN && !waiting.has(key)) {
      started.set(key, n + 1);
      schedule(); // the count is for this turn only
      return done(null, payload);
    }
    const go = () => done(null, payload);
    const queue = waiting.get(key);
    if (queue) queue.push(go);
    else waiting.set(key, [go]);
    schedule();
  });
}

export default fp(limits, { name: 'application-limits', fastify: '5.x', dependencies: ['service-headers'] });
