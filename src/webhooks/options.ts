import type { Clock } from '../clock.js';
import type { Scheduler } from '../schedule/index.js';
import type { Store } from '../store/index.js';
import type { AttemptLogger } from './attempt-log.js';

export interface DispatcherOptions {
  store: Store;
  /**
   * Where due deliveries are claimed. Absent or local (file and memory stores): this process sends
   * every delivery it records or finds at start. Shared: it sends only the deliveries it claimed.
   */
  scheduler?: Scheduler;
  /** The SERVER clock: its moves (and those of an application's clock, through notify) fast-forward retries. */
  clock: Clock;
  /**
   * An application's time (the server clock plus the application's own offset): its attempt times
   * and retry delays follow it. Default: the server clock for every application.
   */
  now?: (application: string) => Date;
  headerPrefix: string;
  /** --webhook-url and --webhook-secret (see WebhookTargets for the rule they follow). */
  flags?: { url: string | null; secret: string | null } | null;
  /** Delays between attempts (ISO 8601 durations or ms); after the last, the delivery fails. */
  schedule?: ReadonlyArray<string | number>;
  /** Per phase of an attempt (connect, the answer's head, each pause in its body); default 5000 ms. */
  timeoutMs?: number;
  /** The whole of an attempt, whatever the receiver does; past it the attempt fails. Default 10000 ms. */
  deadlineMs?: number;
  /** Wall-clock time for signature timestamps (receivers compare them with their own clock). */
  wallClock?: () => Date;
  /** Requests in flight at once, every application together; default 1024. */
  concurrency?: number;
  /** Requests in flight at once for one application (its share, whatever its receiver does); default 256. */
  perApplication?: number;
  /** A shared sandbox without --allow-private-receivers: receivers set by partners reach public addresses only. */
  guardPartners?: boolean;
  /** Seeds the chaos draws (duplicates, delays): the server's --seed. */
  seed?: number;
  /** Trouble at warn; one line per attempt (failed ones at warn, delivered ones at info). */
  logger?: AttemptLogger;
}
