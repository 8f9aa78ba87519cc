import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { clip, errorResponses, errors } from '../http/errors.js';
import { addDuration, parseDuration } from '../time/duration.js';

const Application = Type.String({ minLength: 1, maxLength: 200, description: "only this application's clock; absent: the server clock" });

const ClockBodySchema = Type.Object(
  {
    advance: Type.Optional(Type.String({ description: 'ISO 8601 duration, e.g. PT2H, P1D, -PT30M' })),
    set: Type.Optional(Type.String({ description: 'date-time with a zone, e.g. 2026-03-01T09:00:00Z' })),
    application: Type.Optional(Application),
  },
  { additionalProperties: false },
);

const ClockQuery = Type.Object({ application: Type.Optional(Application) }, { additionalProperties: false });

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

/** A duration that does not parse, or that takes a date past what a Date holds, is the caller's 400. */
function advanceOr400<T>(advance: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof RangeError) throw errors.validation(`body "advance": ${clip(e.message, 200)}`);
    throw e;
  }
}

/**
 * GET and POST /__admin/clock: the server clock, or (with `application`) an application's clock, which
 * is the server clock plus the application's own offset. Token expiry, cutoffs, refund tiers,
 * scenario steps and webhook retries of an application follow its clock; an application without an
 * offset of its own follows the server clock. Both are kept in the store, so a restart keeps them.
 */
export default async function clockRoutes(app: FastifyInstance) {
  const reading = (application: string | undefined) => {
    const own = application === undefined ? null : app.store.tenant(application).clock_offset_ms;
    return { now: app.now(application).toISOString(), offset_ms: app.clock.offset() + (own ?? 0), application: application ?? null, application_offset_ms: own };
  };
  app.get<{ Querystring: Static<typeof ClockQuery> }>(
    '/clock',
    {
      schema: {
        summary: 'Read a clock',
        description: "The server clock's time, or with `?application=` that application's, and its offset from real time in milliseconds (`application_offset_ms`: the application's own, on top of the server clock's).",
        querystring: ClockQuery,
        response: errorResponses({ 400: 'The query breaks its schema' }),
      },
    },
    async (request) => reading(request.query.application),
  );
  app.post<{ Body: Static<typeof ClockBodySchema> }>(
    '/clock',
    {
      schema: {
        summary: 'Move a clock',
        description:
          "Exactly one of `advance` (ISO 8601 duration, may be negative) or `set` (date-time with a zone). Without `application` it moves the server clock, and with it every application's; with `application` only that application's clock (the server clock plus its own offset). Token expiry, cutoffs, refund tiers, webhook retries and scenario steps follow it; a restart keeps it.",
        body: ClockBodySchema,
        response: errorResponses({ 400: 'Neither or both fields, a bad duration or date-time, or a time outside 1970..9999', 503: 'The state file did not take the write' }),
      },
    },
    async (request) => {
      const { advance, set, application } = request.body;
      if ((advance === undefined) === (set === undefined)) {
        throw errors.validation('body needs exactly one of "advance" (ISO 8601 duration) or "set" (date-time)');
      }
      // Where the move takes a clock that reads `from`; a 400 for a bad duration or date-time, or for a
      // time outside 1970..9999.
      let move: (from: number) => number;
      if (advance !== undefined) {
        const duration = advanceOr400(advance, () => parseDuration(advance));
        move = (from) => target(advanceOr400(advance, () => addDuration(new Date(from), duration).getTime()), 'advance', advance);
      } else {
        const at = Date.parse(set as string);
        if (!DATE_TIME.test(set as string) || Number.isNaN(at)) {
          throw errors.validation(`body "set" must be a date-time with a zone such as 2026-03-01T09:00:00Z, got "${clip(set)}"`);
        }
        move = () => target(at, 'set', set as string);
      }
      // Kept in the store: after a restart, token expiry, pending retries and scenario steps go on at
      // the time they were moved to, not back at real time. The offset moves by the move, under the
      // store's lock on the stored offset (never one read earlier: a concurrent move on another
      // instance would be lost), and the clock is read once (a millisecond passing between two
      // readings would make PT2H 1 ms short).
      let to = 0;
      if (application !== undefined) {
        await app.store.update(application, (t) => {
          const from = app.clock.now().getTime() + t.clock_offset_ms;
          to = move(from);
          t.clock_offset_ms += to - from;
        });
        // Retries and scenario steps due on the application's new time run at once.
        app.clock.notify?.();
      } else {
        await app.store.updateServer((s) => {
          const from = app.keptClock.at(s.clock_offset_ms);
          to = move(from);
          s.clock_offset_ms += to - from;
        });
        app.keptClock.follow();
      }
      return { now: new Date(to).toISOString(), application: application ?? null };
    },
  );
}
