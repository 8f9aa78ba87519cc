import { chainOf, compareDeliveries, type Delivery } from './delivery.js';
import type { SendSlots } from './slots.js';

export interface SendQueueOptions {
  slots: SendSlots;
  /** The server clock's time: the timer follows it. */
  serverNow(): number;
  /** An application's time: its due times are on its own clock. */
  now(application: string): number;
  /** The delivery as stored now (undefined: gone). */
  current(id: string): Delivery | undefined;
  inFlight(id: string): boolean;
  /** Attempts under way: idle() waits for none. */
  busy(): boolean;
  start(d: Delivery): void;
  /** A queued delivery found delivered, failed or gone: it leaves this instance. */
  gone(id: string): void;
}

/**
 * When this instance's deliveries are attempted. In memory there is only an index: per application,
 * per order item, its pending deliveries in version order. Only the head of an item's queue is ever
 * attempted, so a later version waits until earlier ones are delivered or failed, while different
 * items are sent concurrently. tick() starts every attempt that is due and has a sending slot (a
 * share per application, applications served in turn); it runs from a timer armed for the next due
 * time, after every clock move and after each attempt.
 */
export class SendQueue {
  /** Application -> order item -> its pending deliveries; an application served moves to the end. */
  readonly #queues = new Map<string, Map<string, Delivery[]>>();
  /** Delivery id -> application, for every delivery this instance has seen. */
  readonly #apps = new Map<string, string>();
  #timer: NodeJS.Timeout | null = null;
  #tickQueued = false;
  #closed = false;
  #idleWaiters: Array<() => void> = [];

  constructor(private readonly o: SendQueueOptions) {}

  applicationOf(id: string): string | undefined {
    return this.#apps.get(id);
  }

  /** Notes a delivery's application (get() finds it by its id). */
  note(d: Delivery): void {
    this.#apps.set(d.id, d.application);
  }

  /** Notes a delivery, and queues it when it is pending. */
  track(d: Delivery): void {
    this.note(d);
    if (d.state !== 'pending') return;
    let items = this.#queues.get(d.application);
    if (!items) this.#queues.set(d.application, (items = new Map()));
    const queue = items.get(chainOf(d)) ?? [];
    if (queue.some((q) => q.id === d.id)) return;
    queue.push(d);
    queue.sort(compareDeliveries);
    items.set(chainOf(d), queue);
  }

  /** Takes a delivery out of its item's queue (it left this instance). */
  remove(d: Delivery): void {
    const items = this.#queues.get(d.application);
    const queue = items?.get(chainOf(d));
    const i = queue?.findIndex((q) => q.id === d.id) ?? -1;
    if (queue && i >= 0) queue.splice(i, 1);
    if (items && queue?.length === 0) items.delete(chainOf(d));
  }

  /** After a reset: the dropped applications' deliveries are gone. */
  forget(application: string | null): void {
    if (application === null) this.#queues.clear();
    else this.#queues.delete(application);
    for (const [id, app] of this.#apps) if (application === null || app === application) this.#apps.delete(id);
  }

  /** Starts every attempt that is due now; arms a timer for the next one. */
  tick(): void {
    this.#tickQueued = false;
    if (this.#closed) return;
    const serverNow = this.o.serverNow();
    // The next due time on the server clock, which the timer follows: an application's due times
    // are on its own clock, ahead of the server's by its offset.
    let earliest = Infinity;
    const served: string[] = [];
    for (const [app, items] of this.#queues) {
      if (this.o.slots.full) break;
      const now = this.o.now(app);
      let started = false;
      for (const [key, queue] of items) {
        // An application at its share waits for its own attempts to end (tick runs after each).
        if (!this.o.slots.free(app)) break;
        if (queue[0] && this.o.inFlight(queue[0].id)) continue;
        const head = this.#head(items, key, queue);
        if (!head || this.o.inFlight(head.id)) continue;
        const due = Date.parse(head.next_attempt_at ?? '');
        if (due > now) {
          earliest = Math.min(earliest, due - (now - serverNow));
          continue;
        }
        this.o.start(head);
        started = true;
      }
      if (items.size === 0) this.#queues.delete(app);
      else if (started) served.push(app);
    }
    // Those just served go behind those that were not: when slots run short, every application gets its turn.
    for (const app of served) {
      const items = this.#queues.get(app);
      if (items && this.#queues.delete(app)) this.#queues.set(app, items);
    }
    this.#arm(earliest, serverNow);
    this.#checkIdle();
  }

  queueTick(): void {
    if (this.#tickQueued || this.#closed) return;
    this.#tickQueued = true;
    setImmediate(() => this.tick());
  }

  /** Resolves when no attempt is running and none is due. */
  idle(): Promise<void> {
    const p = new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
    this.tick();
    return p;
  }

  close(): void {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
  }

  /** Ends every wait for idle() (after close, once the attempts under way ended). */
  release(): void {
    for (const w of this.#idleWaiters.splice(0)) w();
  }

  /** The live head of an item's queue, dropping entries that are no longer pending. */
  #head(items: Map<string, Delivery[]>, key: string, queue: Delivery[]): Delivery | null {
    while (queue.length > 0) {
      const cur = this.o.current(queue[0]!.id);
      if (cur && cur.state === 'pending') return cur;
      this.o.gone(queue.shift()!.id);
    }
    items.delete(key);
    return null;
  }

  #arm(earliest: number, now: number): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (earliest === Infinity) return;
    this.#timer = setTimeout(() => this.queueTick(), Math.min(Math.max(earliest - now, 0), 2 ** 31 - 1));
    this.#timer.unref();
  }

  #checkIdle(): void {
    if (this.o.busy() || this.#tickQueued || this.#idleWaiters.length === 0) return;
    this.release();
  }
}
