/**
 * The one source of time for domain code. Real by default; tests and POST /__admin/clock move it.
 * Domain code never calls Date.now() directly, so a fixed clock makes every response repeatable.
 */
export interface Clock {
  now(): Date;
  /** Moves the clock forward by milliseconds (a real clock keeps an offset). */
  advance(ms: number): void;
  /** Jumps to a given instant (later reads move on from there, at real speed unless frozen). */
  set(at: Date): void;
}

/** Real time plus an offset that the control API can move. */
export function systemClock(): Clock {
  let offset = 0;
  return {
    now: () => new Date(Date.now() + offset),
    advance(ms) {
      offset += ms;
    },
    set(at) {
      offset = at.getTime() - Date.now();
    },
  };
}

/** A clock that stands still unless moved: for tests. */
export function fixedClock(start: Date | string = '2026-01-15T10:00:00Z'): Clock {
  let t = new Date(start).getTime();
  return {
    now: () => new Date(t),
    advance(ms) {
      t += ms;
    },
    set(at) {
      t = at.getTime();
    },
  };
}
