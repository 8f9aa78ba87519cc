import type { Claim, Scheduler } from '../schedule/index.js';
import { LeaseLostError, type Store, type Tenant } from '../store/index.js';
import type { Outcome } from './attempt.js';
import { deliveryDue, type Delivery, type DeliveryAttempt } from './delivery.js';
import type { SendQueue } from './queue.js';

/** What a write recorded of one outcome: each attempt with the delivery after it. */
export type Logged = Array<[DeliveryAttempt, Delivery]>;

/**
 * Which deliveries this instance sends, and how it writes what their attempts did: every one it
 * records or finds at start (one process: LocalOwner), or those it claimed from the database
 * (instances sharing a store: ClaimedOwner).
 */
export interface Owner {
  readonly shared: boolean;
  /** At start: queues the deliveries to resume. */
  start(): void;
  /** A delivery recorded on this instance, once its write is done. */
  recorded(d: Delivery): void;
  /** Writes attempt outcomes of one application (`apply` records one); a promise per outcome, of what `apply` returned. */
  write(application: string, outcomes: Outcome[], apply: (t: Tenant, o: Outcome) => Logged): Array<Promise<Logged>>;
  /** An attempt's outcome is written (written), or will not be: the delivery goes back to being due. */
  finished(d: Delivery, written: boolean): void;
  /** A queued delivery found delivered, failed or gone. */
  gone(id: string): void;
  /** After a reset of an application (null: all). */
  forget(application: string | null): void;
  /** Resolves once due deliveries were looked for. */
  round(): Promise<void>;
}

/** One process owns every delivery (file and memory stores): it resumes the pending ones at start. */
export class LocalOwner implements Owner {
  readonly shared = false;

  constructor(
    private readonly store: Store,
    private readonly queue: SendQueue,
  ) {}

  start(): void {
    for (const app of this.store.applications()) {
      for (const raw of Object.values(this.store.tenant(app).deliveries)) this.queue.track(raw as unknown as Delivery);
    }
  }

  recorded(d: Delivery): void {
    this.queue.track(d);
  }

  write(application: string, outcomes: Outcome[], apply: (t: Tenant, o: Outcome) => Logged): Array<Promise<Logged>> {
    const written = this.store.update(application, (t) => outcomes.map((o) => apply(t, o)));
    return outcomes.map((_, i) => written.then((all) => all[i] as Logged));
  }

  finished(): void {}
  gone(): void {}
  forget(): void {}
  async round(): Promise<void> {}
}

/**
 * Instances share a store: this one sends the deliveries the scheduler claimed for it, read once
 * their application is up to date. An attempt's outcome is written only while the claim's lease is
 * still this instance's (Scheduler.record: the one place it is checked), and the lease is given
 * back with it; the next attempt is claimed anew, here or elsewhere. A late outcome (this instance
 * was frozen past its lease and another one took the delivery over) is discarded: the delivery log
 * never counts an attempt twice, and a delivered delivery never turns failed.
 */
export class ClaimedOwner implements Owner {
  readonly shared = true;
  /** The claims this instance holds, by delivery id (those queued, and those in flight). */
  readonly #claims = new Map<string, { claim: Claim; d: Delivery }>();

  constructor(
    private readonly store: Store,
    private readonly scheduler: Scheduler,
    private readonly queue: SendQueue,
    private readonly inFlight: (id: string) => boolean,
    limit: number,
    /** Whether another instance must send it (it holds the listener's connection): handed off, not sent here. */
    private readonly elsewhere: (d: Delivery) => boolean = () => false,
  ) {
    scheduler.register('webhook', { rule: { field: 'deliveries', due: deliveryDue }, limit, run: (claims) => this.#claimed(claims), lost: (claims) => this.#lost(claims) });
  }

  start(): void {}

  /** The commit that recorded it has woken the scheduler, which claims it here or elsewhere. */
  recorded(d: Delivery): void {
    this.queue.note(d);
  }

  /** One write per outcome, each fenced by its own claim (group commit still makes them one transaction). */
  write(application: string, outcomes: Outcome[], apply: (t: Tenant, o: Outcome) => Logged): Array<Promise<Logged>> {
    return outcomes.map((o) => {
      const held = this.#claims.get(o.d.id);
      return held ? this.scheduler.record('webhook', held.claim, application, (t) => apply(t, o)) : Promise.reject(new LeaseLostError([]));
    });
  }

  /** Written: record() gave the lease back. Else it is given back now (a no-op when lost). */
  finished(d: Delivery, written: boolean): void {
    const held = this.#claims.get(d.id);
    if (!held) return;
    this.queue.remove(d);
    this.#claims.delete(d.id);
    if (!written) this.scheduler.release('webhook', held.claim);
  }

  gone(id: string): void {
    const held = this.#claims.get(id);
    if (!held) return;
    this.#claims.delete(id);
    this.scheduler.done('webhook', held.claim);
  }

  /** The reset application's due rows went with it. */
  forget(application: string | null): void {
    for (const [id, c] of this.#claims) if (application === null || c.d.application === application) this.gone(id);
  }

  round(): Promise<void> {
    return this.scheduler.round('webhook');
  }

  async #claimed(claims: Claim[]): Promise<void> {
    // Each application read first, unless this cache holds every claimed delivery as claimed (most
    // often: this instance recorded them), which then need not wait for a write of theirs under way.
    const holding = new Map<string, number>();
    for (const c of claims) holding.set(c.application, Math.max(holding.get(c.application) ?? 0, c.version ?? Infinity));
    await Promise.all([...holding].map(([a, v]) => this.store.sync?.(a, Number.isFinite(v) ? v : undefined)));
    for (const c of claims) {
      const d = this.store.tenant(c.application).deliveries[c.key] as unknown as Delivery | undefined;
      // Delivered, failed or reset meanwhile: nothing is due any more.
      if (!d || d.state !== 'pending') {
        this.scheduler.drop('webhook', c);
        continue;
      }
      if (this.elsewhere(d)) {
        this.scheduler.handOff('webhook', c);
        continue;
      }
      this.#claims.set(d.id, { claim: c, d });
      this.queue.track(d);
    }
    this.queue.queueTick();
  }

  /** Leases another instance took over: no new attempt starts here; one in flight ends, and record() discards its outcome. */
  #lost(claims: Claim[]): void {
    for (const c of claims) {
      const held = this.#claims.get(c.key);
      if (held?.claim !== c) continue;
      this.queue.remove(held.d);
      if (!this.inFlight(c.key)) this.#claims.delete(c.key);
    }
  }
}
