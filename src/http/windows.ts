import type { Clock } from '../clock.js';

/**
 * Counters in fixed windows per key, on the server clock (tests move it instead of waiting):
 * request rates, failed authentications. Remembers at most `size` keys; past that, the least
 * recently started window goes first. A clock set back starts a new window.
 */
export class FixedWindows {
  readonly #windows = new Map<string, { count: number; start: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly windowMs: number,
    private readonly size = 10_000,
  ) {}

  /** Counts one for `key`: its count in the current window, and the ms left of that window. */
  hit(key: string): { count: number; left: number } {
    const now = this.clock.now().getTime();
    let w = this.#windows.get(key);
    if (!w || now - w.start >= this.windowMs || now < w.start) {
      this.#windows.delete(key);
      if (this.#windows.size >= this.size) this.#windows.delete(this.#windows.keys().next().value as string);
      this.#windows.set(key, (w = { count: 0, start: now }));
    }
    w.count++;
    return { count: w.count, left: w.start + this.windowMs - now };
  }

  /** The current window of `key`, uncounted: its count and the ms left of it (0 and 0 when it has none). */
  peek(key: string): { count: number; left: number } {
    const w = this.#windows.get(key);
    const left = w ? w.start + this.windowMs - this.clock.now().getTime() : 0;
    return w && left > 0 && left <= this.windowMs ? { count: w.count, left } : { count: 0, left: 0 };
  }
}
