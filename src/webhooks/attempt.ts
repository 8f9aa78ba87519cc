import { setTimeout as sleep } from 'node:timers/promises';
import type { AttemptLogger } from './attempt-log.js';
import type { ChaosMark, ChaosSettings } from './chaos.js';
import type { Delivery, DeliveryAttempt, DeliveryFilter } from './delivery.js';
import { NO_RECEIVER, type Outbound } from './outbound.js';
import type { AttemptResult } from './sender.js';
import type { SendSlots } from './slots.js';

/** Asked before each attempt: a reason makes it a failed attempt without a request (scenario "receiver down"). */
export type ReceiverGate = (delivery: Delivery, now: Date) => string | null;

/** One entry an attempt leaves in a delivery log: the attempt itself, or a chaos send after it. */
export interface AttemptRecord {
  d: Delivery;
  attempt: DeliveryAttempt;
  delivered: boolean;
  /** A chaos send of a delivery already delivered: recorded without changing its state. */
  extra: boolean;
}

/** What one attempt did, recorded in one write (on a shared store, the write its claim fences). */
export interface Outcome {
  d: Delivery;
  /** The reset generation it started in: the outcome of a delivery reset meanwhile is not recorded. */
  generation: string;
  /** Where it went (password hidden), for the log line; null without a logger. */
  receiver: string | null;
  /** Empty when the attempt threw or was cut off by closing: nothing to record. */
  records: AttemptRecord[];
}

type Sent = AttemptResult & { chaos?: ChaosMark };

export interface AttemptsOptions {
  outbound: Outbound;
  slots: SendSlots;
  chaos: ChaosSettings;
  gate(): ReceiverGate | null;
  now(application: string): Date;
  /** Deliveries of one item (reorder sends the previous version again). */
  list(filter: DeliveryFilter): Delivery[];
  /** An attempt ended, with what it did. */
  ended(outcome: Outcome): void;
  logger?: AttemptLogger;
}

/**
 * Runs attempts: chaos that makes one fail or wait, the request through Outbound, chaos sends after
 * a delivery. An attempt stays in flight until its outcome is recorded (settled()), so that it is
 * never started twice.
 */
export class Attempts {
  readonly #inFlight = new Map<string, Promise<void>>();
  /** Aborted by close(): ends chaos delays at once. */
  readonly #closing = new AbortController();
  /** Bumped by a reset (all, or per application): attempts started before it are not recorded. */
  #generation = 0;
  readonly #appGeneration = new Map<string, number>();

  constructor(private readonly o: AttemptsOptions) {}

  /** After a reset of an application (null: all): what its running attempts did is not recorded. */
  forget(application: string | null): void {
    if (application === null) this.#generation++;
    else this.#appGeneration.set(application, (this.#appGeneration.get(application) ?? 0) + 1);
  }

  /** Whether no reset of its application came since the attempt started. */
  current(o: Outcome): boolean {
    return o.generation === this.#gen(o.d.application);
  }

  has(id: string): boolean {
    return this.#inFlight.has(id);
  }

  get size(): number {
    return this.#inFlight.size;
  }

  /** Its outcome is recorded (or given up on): the delivery's item may go on. */
  settled(id: string): void {
    this.#inFlight.delete(id);
  }

  start(d: Delivery): void {
    const at = this.o.now(d.application);
    const outcome: Outcome = { d, generation: this.#gen(d.application), receiver: this.o.logger ? this.o.outbound.receiver(d.application) : null, records: [] };
    const record = (x: Delivery, r: Sent, when: Date, extra = false) => {
      const attempt: DeliveryAttempt = {
        at: when.toISOString(),
        ...(r.status_code !== undefined ? { status_code: r.status_code } : { error: r.error ?? 'unknown error' }),
        duration_ms: r.duration_ms,
        ...(r.chaos ? { chaos: r.chaos } : {}),
        ...(r.headers ? { headers: r.headers } : {}),
      };
      outcome.records.push({ d: x, attempt, delivered: r.delivered, extra });
    };
    const run = (async () => {
      // Up to the first await this runs within the caller's tick: a request takes its slot from the
      // tick's share, a chaos delay takes one only once it is over, an attempt without a request none.
      const plan = this.#plan(d, at);
      if (typeof plan !== 'number') return record(d, plan, at);
      if (plan === 0) this.o.slots.take(d.application);
      else if (!(await this.#delay(d.application, plan))) return;
      try {
        const result: Sent = plan > 0 ? { ...(await this.o.outbound.send(d)), chaos: 'delay' } : await this.o.outbound.send(d);
        if (this.#closing.signal.aborted) return;
        record(d, result, at);
        if (result.delivered) await this.#chaosAfterDelivery(d, (x, r, when) => record(x, r, when, true));
      } finally {
        this.o.slots.release(d.application);
      }
    })()
      .catch((err: unknown) => this.o.logger?.warn({ err, delivery: d.id }, 'webhook attempt failed unexpectedly'))
      .finally(() => this.o.ended(outcome));
    this.#inFlight.set(d.id, run);
  }

  /** Ends chaos delays and waits for slots; the requests under way are cut off by closing the senders. */
  close(): void {
    this.#closing.abort();
    this.o.slots.close();
  }

  /** Resolves once every attempt under way has ended. */
  async ended(): Promise<void> {
    await Promise.allSettled([...this.#inFlight.values()]);
  }

  #gen(application: string): string {
    return `${this.#generation}:${this.#appGeneration.get(application) ?? 0}`;
  }

  /**
   * Before an attempt's request: the outcome when there is none (no URL, the scenario gate, chaos
   * fail_first), else the chaos delay to wait first in ms (0: none).
   */
  #plan(d: Delivery, now: Date): Sent | number {
    if (!this.o.outbound.has(d)) return { error: NO_RECEIVER, duration_ms: 0, delivered: false };
    const blocked = this.o.gate()?.(d, now);
    if (blocked) return { error: blocked, duration_ms: 0, delivered: false };
    const chaos = this.o.chaos.for(d);
    const inRound = d.attempts.length - d.round_start;
    if (chaos && inRound < chaos.fail_first) {
      return { error: `chaos: fail_first (attempt ${inRound + 1} of the first ${chaos.fail_first} fails without a request)`, duration_ms: 0, delivered: false, chaos: 'fail_first' };
    }
    const [min, max] = chaos?.delay_ms ?? [0, 0];
    return max > 0 ? Math.round(min + this.o.chaos.draw(d.application, 'delay') * (max - min)) : 0;
  }

  /** A chaos delay, outside the sending slots, then a slot; false when closing meanwhile. */
  async #delay(application: string, ms: number): Promise<boolean> {
    try {
      await sleep(ms, undefined, { signal: this.#closing.signal });
    } catch {
      return false;
    }
    return this.o.slots.acquire(application);
  }

  /** Chaos after a delivery got its 200: the same delivery once more, or the item's previous one again. */
  async #chaosAfterDelivery(d: Delivery, record: (x: Delivery, r: Sent, at: Date) => void): Promise<void> {
    const chaos = this.o.chaos.for(d);
    if (!chaos) return;
    if (chaos.duplicate > 0 && this.o.chaos.draw(d.application, 'duplicate') < chaos.duplicate) {
      const at = this.o.now(d.application);
      record(d, { ...(await this.o.outbound.send(d)), chaos: 'duplicate' }, at);
    }
    if (chaos.reorder) {
      const earlier = this.o
        .list({ application: d.application, order_item_uuid: d.order_item_uuid })
        .filter((x) => x.state === 'delivered' && x.target === d.target && x.order_item_version < d.order_item_version)
        .sort((a, b) => b.order_item_version - a.order_item_version)[0];
      if (earlier && !this.#closing.signal.aborted) {
        const at = this.o.now(d.application);
        record(earlier, { ...(await this.o.outbound.send(earlier)), chaos: 'reorder' }, at);
      }
    }
  }
}
