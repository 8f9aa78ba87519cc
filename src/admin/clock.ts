import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { errors } from '../http/errors.js';
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

/** POST /__admin/clock: moves the server clock that token expiry, delays and retries follow. */
export default async function clockRoutes(app: FastifyInstance) {
  app.post<{ Body: Static<typeof ClockBodySchema> }>(
    '/clock',
    { schema: { body: ClockBodySchema } },
    async (request) => {
      const { advance, set } = request.body;
      if ((advance === undefined) === (set === undefined)) {
        throw errors.validation('body needs exactly one of "advance" (ISO 8601 duration) or "set" (date-time)');
      }
      if (advance !== undefined) {
        try {
          const d = parseDuration(advance);
          const now = app.clock.now();
          app.clock.advance(addDuration(now, d).getTime() - now.getTime());
        } catch (e) {
          if (e instanceof DurationError || e instanceof RangeError) throw errors.validation(`body "advance": ${e.message}`);
          throw e;
        }
      } else {
        const at = Date.parse(set as string);
        if (!DATE_TIME.test(set as string) || Number.isNaN(at)) {
          throw errors.validation(`body "set" must be a date-time with a zone such as 2026-03-01T09:00:00Z, got "${set}"`);
        }
        app.clock.set(new Date(at));
      }
      return { now: app.clock.now().toISOString() };
    },
  );
}
