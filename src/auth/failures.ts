import type { Clock } from '../clock.js';
import { FixedWindows } from '../http/windows.js';

/** Failed authentications one source address may make in a window before it must wait. */
export const FAILURE_BURST = 30;

/**
 * Failed authentications per source address (a wrong bearer token, admin token or client secret),
 * on the server clock: after FAILURE_BURST in a minute, the address waits out the rest of that
 * minute before any credential it sends is looked at. Guessing then costs a minute per burst, and
 * a flood of wrong tokens is answered without a lookup. A request that sends no credential is
 * never counted (a catalog read, a dashboard not logged in yet).
 */
export class AuthFailures {
  readonly #windows: FixedWindows;

  constructor(clock: Clock) {
    this.#windows = new FixedWindows(clock, 60_000);
  }

  /** Seconds `address` must wait before its credentials are looked at again; 0 when it need not. */
  wait(address: string): number {
    const { count, left } = this.#windows.peek(address);
    return count >= FAILURE_BURST ? Math.ceil(left / 1000) : 0;
  }

  failed(address: string): void {
    this.#windows.hit(address);
  }
}
