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
  /** How far the clock is from real time (ms): what a restart needs to come back to the same time. */
  offset(): number;
  /**
   * Calls `listener` after every advance() or set(), so timers that follow the server clock
   * (webhook retries, scenario steps) can catch up at once. Returns a function that removes it.
   */
  onChange?(listener: () => void): () => void;
  /** Tells the onChange listeners that time moved elsewhere (an application's own clock), without moving this one. */
  notify?(): void;
}

/** The listener list behind Clock.onChange. */
function listeners(): { add(l: () => void): () => void; emit(): void } {
  const set = new Set<() => void>();
  return {
    add(l) {
      set.add(l);
      return () => set.delete(l);
    },
    emit() {
      for (const l of [...set]) l();
    },
  };
}

/** Real time plus an offset that the control API can move (a restart passes the one it saved). */
export function systemClock(initialOffset = 0): Clock {
  let offset = initialOffset;
  const changed = listeners();
  return {
    now: () => new Date(Date.now() + offset),
    advance(ms) {
      offset += ms;
      changed.emit();
    },
    set(at) {
      offset = at.getTime() - Date.now();
      changed.emit();
    },
    offset: () => offset,
    onChange: changed.add,
    notify: changed.emit,
  };
}

/** A clock that stands still unless moved: for tests. */
export function fixedClock(start: Date | string = '2026-01-15T10:00:00Z'): Clock {
  let t = new Date(start).getTime();
  const changed = listeners();
  return {
    now: () => new Date(t),
    advance(ms) {
      t += ms;
      changed.emit();
    },
    set(at) {
      t = at.getTime();
      changed.emit();
    },
    offset: () => t - Date.now(),
    onChange: changed.add,
    notify: changed.emit,
  };
}

/** A clock kept on the offset a store holds for it (the server clock: a restart and every instance share it). */
export interface KeptClock {
  /** The clock's time (ms) with the stored offset at `offset`, as a write under the store's lock reads it: the clock is read once. */
  at(offset: number): number;
  /** Moves the clock by what the stored offset moved since it last followed. */
  follow(): void;
}

/**
 * Follows the stored offset by its changes, not its value: the clock is where it started (a test's
 * fixed clock, a restart's saved offset) plus every move stored since, whichever instance stored it.
 */
export function keptClock(clock: Clock, stored: () => number): KeptClock {
  let followed = stored();
  return {
    at: (offset) => clock.now().getTime() + offset - followed,
    follow() {
      const by = stored() - followed;
      followed += by;
      if (by !== 0) clock.advance(by);
    },
  };
}
