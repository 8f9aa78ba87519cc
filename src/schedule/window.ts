/** How often, in an application's time, its records of one kind are swept for expired ones. */
export const SWEEP_EVERY_MS = 10 * 60 * 1000;

/**
 * When each periodic job (an application's sweep of one kind) last ran in this process: a job is
 * due again once `every` ms of its application's time have passed either way (clocks move back too).
 */
export class Windows {
  readonly #last = new Map<string, number>();

  /** Whether the job `key` is due at `now`; if so, notes that it runs now. */
  take(key: string, now: number, every = SWEEP_EVERY_MS): boolean {
    const last = this.#last.get(key);
    if (last !== undefined && Math.abs(now - last) < every) return false;
    this.#last.set(key, now);
    return true;
  }
}

export const windowKey = (application: string, kind: string): string => `${kind}\u0000${application}`;
