import { LeaseLostError, type Tenant } from '../store/index.js';
import { logAttempt, type AttemptLogger } from './attempt-log.js';
import type { Outcome } from './attempt.js';
import { afterAttempt, type Delivery, type DeliveryAttempt } from './delivery.js';
import type { Logged, Owner } from './owners.js';

/** Told about each recorded attempt: the delivery, the attempt, and the delivery after it. */
export type AttemptObserver = (delivery: Delivery, attempt: DeliveryAttempt, next: Delivery) => void;

export interface RecorderOptions {
  owner: Owner;
  delays: readonly number[];
  /** Whether an outcome is still to be recorded: its delivery was not reset meanwhile. */
  current(o: Outcome): boolean;
  /** An outcome is in the state (written: true), or will not be: its delivery's item may go on. */
  settled(d: Delivery, written: boolean): void;
  observers: AttemptObserver[];
  logger?: AttemptLogger;
}

/**
 * Writes what attempts did into the delivery log: every outcome that came in since the last save,
 * in one store write per application (a burst of answers costs one write, not one each), then logs
 * them and frees their items for their next attempt.
 */
export class Recorder {
  #queue: Outcome[] = [];
  #saveQueued = false;

  constructor(private readonly o: RecorderOptions) {}

  add(outcome: Outcome): void {
    this.#queue.push(outcome);
    if (this.#saveQueued) return;
    this.#saveQueued = true;
    setImmediate(() => this.save());
  }

  save(): void {
    this.#saveQueued = false;
    const byApp = new Map<string, Outcome[]>();
    for (const o of this.#queue.splice(0)) {
      if (o.records.length === 0 || !this.o.current(o)) {
        this.o.settled(o.d, false);
        continue;
      }
      byApp.set(o.d.application, [...(byApp.get(o.d.application) ?? []), o]);
    }
    for (const [application, list] of byApp) this.#write(application, list);
  }

  #write(application: string, list: Outcome[]): void {
    // Once its write is done: log an outcome and free its item. If the write failed, the item is
    // freed all the same, and the attempt is made again.
    const settle = (o: Outcome, logged: Logged) => {
      for (const [attempt, next] of logged) {
        if (this.o.logger) logAttempt(this.o.logger, o.d, attempt, o.receiver, next);
        for (const observe of this.o.observers) observe(o.d, attempt, next);
      }
      this.o.settled(o.d, logged.length > 0);
    };
    // Changes only the tenant: a write retried on a fresher tenant runs it again, and only the run
    // that commits is logged.
    const apply = (t: Tenant, o: Outcome): Logged => {
      const logged: Logged = [];
      for (const r of o.records) {
        const cur = t.deliveries[r.d.id] as unknown as Delivery;
        // A chaos send adds to the log of a delivery that is delivered already.
        const next = r.extra ? { ...cur, attempts: [...cur.attempts, r.attempt] } : afterAttempt(cur, r.attempt, r.delivered, this.o.delays);
        t.deliveries[r.d.id] = next as unknown as Tenant['deliveries'][string];
        logged.push([r.attempt, next]);
      }
      return logged;
    };
    const writes = this.o.owner.write(application, list, apply);
    void Promise.allSettled(writes).then((results) => {
      const failed: Outcome[] = [];
      let err: unknown;
      list.forEach((o, i) => {
        const r = results[i] as PromiseSettledResult<Logged>;
        if (r.status === 'fulfilled') return settle(o, r.value);
        if (r.reason instanceof LeaseLostError) {
          const attempts = o.records.map((x) => x.attempt.status_code ?? x.attempt.error);
          this.o.logger?.warn({ delivery: o.d.id, application: o.d.application, attempts }, `webhook attempt outcome discarded: the lease on delivery ${o.d.id} ran out and another instance took it over (at least once: the receiver may get it twice, with the same webhook-id)`);
        } else {
          failed.push(o);
          err = r.reason;
        }
        settle(o, []);
      });
      if (failed.length > 0) this.o.logger?.warn({ err, deliveries: failed.map((o) => o.d.id) }, 'webhook delivery state not saved');
    });
  }
}
