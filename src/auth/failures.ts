import type { Clock } from '../clock.js';

/** Failed authentications one source address may make in a window before it must wait. */
export const FAILURE_BURST = 30;
const WINDOW_MS = 60_000;
/** Addresses remembered at most; the least recently started window goes first. */
const ADDRESSES = 10_000;

/**
 * Failed authentications per source address (a wrong bearer token, admin token or client secret),
 * on the server clock: after FAILURE_BURST in a minute, the address waits out the rest of that
 * minute before any credential it sends is looked at. Guessing then costs a minute per burst, and
 * a flood of wrong tokens is answered without a lookup. A request that sends no credential is
 * never counted (a catalog read, a dashboard not logged in yet).
 */
export class AuthFailures {
  readonly #windows = new Map<string, { count: number; start: number }>();

  constructor(private readonly clock: Clock) {}

  /** Seconds `address` must wait before its credentials are looked at again; 0 when it need not. */
  wait(address: string): number {
    const w = this.#windows.get(address);
    if (!w || w.count < FAILURE_BURST) return 0;
    const left = w.start + WINDOW_MS - this.clock.now().getTime();
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }

  failed(address: string): void {
    const now = this.clock.now().getTime();
    let w = this.#windows.get(address);
    // A clock set back starts a new window too.
    if (!w || now - w.start >= WINDOW_MS || now < w.start) {
      this.#windows.delete(address);
      if (this.#windows.size >= ADDRESSES) this.#windows.delete(this.#windows.keys().next().value as string);
      this.#windows.set(address, (w = { count: 0, start: now }));
    }
    w.count++;
  }
}
