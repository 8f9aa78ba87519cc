import fp from 'fastify-plugin';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { errors } from './errors.js';

export interface LimitsOptions {
  /** Partner requests per second per application. */
  perSecond: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Past the rate: ms until the application's window opens again. */
    rateLimitWait?: number;
  }
}

/**
 * A shared sandbox's request rate per application (--rate-limit, only with --shared): one noisy
 * partner cannot take the server's time from the others. @fastify/rate-limit, keyed by the
 * application header (after the header rules: a request without one is already a 400), in memory:
 * with several instances each counts its own share. Within the limit the answers carry no extra
 * headers, as the real API's; past it, 429 {code, message} with Retry-After.
 *
 * The 429 is sent when the application's window opens again (within a second), not at once: a
 * client that retries at once on every connection would otherwise turn cheap refusals into a flood
 * that takes the CPU from everyone else. Held, it sends at most one request per connection per
 * window.
 */
async function limits(app: FastifyInstance, opts: LimitsOptions) {
  await app.register(rateLimit, {
    global: true,
    max: opts.perSecond,
    timeWindow: 1000,
    // One counter per application; the least recently seen go first past this many.
    cache: 10_000,
    keyGenerator: (request) => request.service?.application ?? '',
    addHeadersOnExceeding: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false },
    addHeaders: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': true, 'retry-after': true },
    errorResponseBuilder: (request, context) => {
      request.rateLimitWait = Math.min(context.ttl, 1000);
      return errors.rateLimited(request.service?.application ?? '', context.max, Math.max(1, Math.ceil(context.ttl / 1000)));
    },
  });
  // A callback hook: no promise on the requests within the limit.
  app.addHook('onSend', (request, _reply, payload, done) => {
    if (request.rateLimitWait === undefined) return done(null, payload);
    setTimeout(() => done(null, payload), request.rateLimitWait);
  });
}

export default fp(limits, { name: 'application-limits', fastify: '5.x', dependencies: ['service-headers'] });
