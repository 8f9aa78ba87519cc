import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { clip, errorResponses, errors } from '../http/errors.js';
import { addDuration, DurationError, parseDuration } from '../time/duration.js';

const ClockBodySchema = Type.Object(
  {
    advance: Type.Optional(Type.String({ description: 'ISO 8601 duration, e.g. PT2H, P1D, -PT30M' })),
    set: Type.Optional(Type.String({ description: 'date-time with a zone, e.g. 2026-03-01T09:00:00Z' })),
  },
  { additionalProperties: false },
);

/** A date-time with a date, a time and a zone: "tomorrow" or a bare date would be guessed at. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * Where the clock may go: dates past year 9999 have no four-digit ISO 8601 form (webhook and API
 * date-times would break), and a jump past the largest Date left the clock NaN for every later call.
 */
const EARLIEST = Date.UTC(1970, 0, 1);
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

function target(at: number, field: string, asked: string): number {
  if (Number.isNaN(at) || at < EARLIEST || at > LATEST) {
    throw errors.validation(`body "${field}": ${clip(asked)} would put the clock outside 1970-01-01T00:00:00Z..9999-12-31T23:59:59Z`);
  }
  return at;
}

/** POST /__admin/clock: moves the server clock that token expiry, delays and retries follow; a restart keeps it. */
export default async function clockRoutes(app: FastifyInstance) {
  app.get('/clock', { schema: { summary: 'Read the server clock', description: 'Its time and its offset from real time in milliseconds.' } }, async () => ({ now: app.clock.now().toISOString(), offset_ms: app.clock.offset() }));
  app.post<{ Body: Static<typeof ClockBodySchema> }>(
    '/clock',
    {
      schema: {
        summary: 'Move the server clock',
        description: 'Exactly one of `advance` (ISO 8601 duration, may be negative) or `set` (date-time with a zone). Token expiry, delays, webhook retries and scenario steps follow it; a restart keeps it.',
        body: ClockBodySchema,
        response: errorResponses({ 400: 'Neither or both fields, a bad duration or date-time, or a time outside 1970..9999', 503: 'The state file did not take the write' }),
      },
    },
    async (request) => {
      const { advance, set } = request.body;
      if ((advance === undefined) === (set === undefined)) {
        throw errors.validation('body needs exactly one of "advance" (ISO 8601 duration) or "set" (date-time)');
      }
      if (advance !== undefined) {
        const now = app.clock.now();
        let to: number;
        try {
          to = addDuration(now, parseDuration(advance)).getTime();
        } catch (e) {
          if (e instanceof DurationError || e instanceof RangeError) throw errors.validation(`body "advance": ${clip(e.message, 200)}`);
          throw e;
        }
        app.clock.advance(target(to, 'advance', advance) - now.getTime());
      } else {
        const at = Date.parse(set as string);
        if (!DATE_TIME.test(set as string) || Number.isNaN(at)) {
          throw errors.validation(`body "set" must be a date-time with a zone such as 2026-03-01T09:00:00Z, got "${clip(set)}"`);
        }
        app.clock.set(new Date(target(at, 'set', set as string)));
      }
      // Kept in the state file: after a restart, token expiry, pending retries and scenario steps
      // go on at the time they were moved to, not back at real time.
      const offset = app.clock.offset();
      await app.store.updateServer((s) => void (s.clock_offset_ms = offset));
      return { now: app.clock.now().toISOString() };
    },
  );
}
