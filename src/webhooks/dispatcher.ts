import type { Tenant } from '../store/index.js';
import { ApiError, clip, errors } from '../http/errors.js';
import type { OrderItemSnapshot } from './payload.js';
import { Attempts, type Outcome, type ReceiverGate } from './attempt.js';
import { ChaosSettings, type ChaosSource } from './chaos.js';
import { DEFAULT_RETRY_SCHEDULE, listDeliveries, recordDelivery, retryDelays, type Delivery, type DeliveryFilter } from './delivery.js';
import { Listeners } from './listeners.js';
import type { DispatcherOptions } from './options.js';
import { Outbound } from './outbound.js';
import { ClaimedOwner, LocalOwner, type Owner } from './owners.js';
import { SendQueue } from './queue.js';
import { Recorder, type AttemptObserver } from './recorder.js';
import { SendSlots } from './slots.js';
import { WebhookTargets, type ReceiverSource, type WebhookTarget } from './targets.js';
import { withWaiting, type DeliveryView } from './waiting.js';

export type { ReceiverSource, WebhookTarget } from './targets.js';
export type { ReceiverGate } from './attempt.js';
export type { AttemptObserver } from './recorder.js';
export type { DispatcherOptions } from './options.js';

/**
 * Sends "Update order item" webhooks. State lives in the store (tenant.deliveries); the parts:
 * SendQueue (when an attempt starts), Attempts (chaos and the request, through Outbound, the one
 * place a delivery leaves), Recorder (the delivery log), and an Owner: which deliveries are this
 * instance's (all of them, or those claimed from a shared store) and how their outcomes are written.
 */
export class WebhookDispatcher {
  readonly #targets: WebhookTargets;
  readonly #outbound: Outbound;
  readonly #delays: number[];
  readonly #queue: SendQueue;
  readonly #attempts: Attempts;
  readonly #recorder: Recorder;
  readonly #owner: Owner;
  readonly #now: (application: string) => Date;
  readonly #unsubscribe: () => void;
  #gate: ReceiverGate | null = null;
  readonly #observers: AttemptObserver[] = [];
  /** The control API's chaos settings (PUT /__admin/webhooks/chaos). */
  readonly chaos: ChaosSettings;
  /** `mock-server listen`: a delivery target of its application beside the receiver. */
  readonly listeners: Listeners;
  /** A move's delivery to the listener, recorded beside the receiver's (record() returns one, send() sends both). */
  readonly #also = new WeakMap<Delivery, Delivery>();

  constructor(private readonly opts: DispatcherOptions) {
    const store = opts.store;
    this.chaos = new ChaosSettings(store, opts.seed ?? 1);
    // Connections per receiver as many as requests in all: applications sharing a receiver are held to their shares by the slots, not by undici's pool.
    const total = opts.concurrency ?? 1024;
    const slots = new SendSlots(total, Math.min(opts.perApplication ?? 256, total));
    this.#targets = new WebhookTargets(store, opts.flags ?? { url: null, secret: null }, opts.guardPartners);
    this.#now = opts.now ?? (() => opts.clock.now());
    this.listeners = new Listeners(store, this.#now, () => this.#queue.queueTick());
    this.#outbound = new Outbound({ targets: this.#targets, listeners: this.listeners, headerPrefix: opts.headerPrefix, wall: opts.wallClock ?? (() => new Date()), timeoutMs: opts.timeoutMs, deadlineMs: opts.deadlineMs, connections: total });
    this.#delays = retryDelays(opts.schedule ?? DEFAULT_RETRY_SCHEDULE);
    this.#queue = new SendQueue({
      slots,
      serverNow: () => opts.clock.now().getTime(),
      now: (app) => this.#now(app).getTime(),
      current: (id) => this.get(id),
      inFlight: (id) => this.#attempts.has(id),
      busy: () => this.#attempts.size > 0,
      start: (d) => this.#attempts.start(d),
      gone: (id) => this.#owner.gone(id),
    });
    this.#owner = opts.scheduler?.shared ? new ClaimedOwner(store, opts.scheduler, this.#queue, (id) => this.#attempts.has(id), total, (d) => d.target === 'listener' && this.listeners.where(d.application) === 'elsewhere') : new LocalOwner(store, this.#queue);
    this.#attempts = new Attempts({
      outbound: this.#outbound,
      slots,
      chaos: this.chaos,
      gate: () => this.#gate,
      now: this.#now,
      list: (filter) => this.list(filter),
      // Its slot is free: other items may start now, not only once its outcome is written (on
      // PostgreSQL a round later; its own item waits for that, being in flight until then).
      ended: (outcome) => {
        this.#recorder.add(outcome);
        this.#queue.queueTick();
      },
      logger: opts.logger,
    });
    this.#recorder = new Recorder({
      owner: this.#owner,
      delays: this.#delays,
      current: (o: Outcome) => this.#attempts.current(o) && this.get(o.d.id) !== undefined,
      settled: (d, written) => {
        this.#attempts.settled(d.id);
        this.#owner.finished(d, written);
        this.#queue.queueTick();
      },
      observers: this.#observers,
      logger: opts.logger,
    });
    this.#unsubscribe = opts.clock.onChange?.(() => this.#queue.queueTick()) ?? (() => undefined);
    store.onReset((app) => {
      this.#forget(app);
      // An application's chaos went with its state; a reset of everything drops the one for all too.
      if (app === null) void this.chaos.clear().catch((err: unknown) => opts.logger?.warn({ err }, 'chaos for all could not be dropped'));
    });
  }

  /** The sender of webhooks to receivers (tests watch it). */
  get sender() {
    return this.#outbound.sender;
  }

  /** At start, before start(): --webhook-url replaces a server-wide receiver stored by an earlier run. */
  applyFlags(): Promise<void> {
    return this.#targets.start();
  }

  /** Resumes the pending deliveries of an earlier run (one process); shared: the scheduler's claims bring them. */
  start(): void {
    this.#owner.start();
    this.tick();
  }

  /** The URL and secret an application's webhooks go to, or null when none is configured. */
  target(application: string): WebhookTarget | null {
    return this.#targets.of(application);
  }

  /** The server-wide target (flags, or PUT /__admin/webhooks/config without an application). */
  defaultTarget(): WebhookTarget | null {
    return this.#targets.default;
  }

  /** Where webhooks go and why: the server-wide receiver and each application's own (GET /__admin/webhooks/config, the banner). */
  receivers(): { default: ReceiverSource | null; applications: Record<string, ReceiverSource> } {
    return { default: this.#targets.describeDefault(), applications: this.#targets.describeApplications() };
  }

  /** What applies to one application now, or (none given) the server-wide receiver. */
  receiver(application?: string): ReceiverSource | null {
    return this.#targets.describe(application);
  }

  /** PUT /__admin/webhooks/config: one application, or (no application) the default for all, dropping per-application ones. */
  configure(application: string | undefined, target: WebhookTarget | null, setBy: 'admin' | 'partner' = 'admin'): Promise<void> {
    return this.#targets.configure(application, target, this.opts.clock.now(), setBy);
  }

  /**
   * Records the webhook of one status move inside the caller's store.update (atomic with the move):
   * a delivery to the receiver, and one to the listener when the application has one (see
   * listeners.ts); null when it has neither. Call send() with the result once the update resolved:
   * it sends both.
   */
  record(tenant: Tenant, application: string, snapshot: OrderItemSnapshot): Delivery | null {
    const now = this.#now(application);
    const toReceiver = tenant.webhookConfig ?? this.#targets.default ? recordDelivery(tenant, application, snapshot, now) : null;
    const toListener = this.listeners.wants(tenant, application, snapshot.item.status, this.secretOf(application) !== null) ? recordDelivery(tenant, application, snapshot, now, 'listener') : null;
    if (toReceiver && toListener) this.#also.set(toReceiver, toListener);
    return toReceiver ?? toListener;
  }

  /** The secret an application's webhooks are signed with (null: the server-wide one), receiver or none. */
  secretOf(application: string | null): string | null {
    return this.#targets.secretOf(application);
  }

  /** Starts sending a delivery returned by record() (and the listener's beside it). */
  send(delivery: Delivery | null): void {
    if (!delivery) return;
    const also = this.#also.get(delivery);
    if (also) this.send(also);
    this.#owner.recorded(delivery);
    this.#queue.queueTick();
  }

  /** record() and send() in one go, for callers without their own store.update. */
  async enqueue(application: string, snapshot: OrderItemSnapshot): Promise<Delivery | null> {
    const d = await this.opts.store.update(application, (t) => this.record(t, application, snapshot));
    this.send(d);
    return d;
  }

  get(id: string): Delivery | undefined {
    const store = this.opts.store;
    // Shared: a delivery recorded by another instance is found where it is.
    const app = this.#queue.applicationOf(id) ?? (this.#owner.shared ? store.applications().find((a) => store.tenant(a).deliveries[id]) : undefined);
    return app === undefined ? undefined : (store.tenant(app).deliveries[id] as unknown as Delivery | undefined);
  }

  /** Deliveries oldest first, optionally of one application and/or one order item. */
  list(filter: DeliveryFilter = {}): Delivery[] {
    return listDeliveries(this.opts.store, filter);
  }

  /** Deliveries oldest first, each with why it waits (the control API's and the dashboard's view). */
  views(filter: DeliveryFilter = {}): DeliveryView[] {
    return withWaiting(this.list(filter), (d, head) => {
      const now = this.#now(d.application);
      const due = new Date(Math.max(Date.parse(d.next_attempt_at ?? ''), now.getTime()) || now.getTime());
      return { now, head, inFlight: this.#attempts.has(d.id), hasReceiver: d.target === 'listener' || this.target(d.application) !== null, blocked: this.#gate?.(d, due) ?? null, chaos: this.chaos.for(d), delays: this.#delays };
    });
  }

  /** One delivery with why it waits. */
  view(d: Delivery): DeliveryView {
    return this.views({ application: d.application, order_item_uuid: d.order_item_uuid }).find((x) => x.id === d.id) ?? { ...d, waiting: null };
  }

  /** Sends a delivery again now, with a fresh round of retries; 404 unknown, 409 while an attempt is running. */
  async redeliver(id: string): Promise<Delivery> {
    const app = this.get(id)?.application;
    if (app === undefined) throw errors.notFound(`No webhook delivery ${clip(id)}`);
    if (this.#attempts.has(id)) throw new ApiError(409, '0', `Webhook delivery ${id} is being attempted right now: try again when the attempt ends`);
    const now = this.#now(app).toISOString();
    const d = await this.opts.store.update(app, (t) => {
      const cur = t.deliveries[id] as unknown as Delivery;
      const next: Delivery = { ...cur, attempts: [...cur.attempts], state: 'pending', next_attempt_at: now, round_start: cur.attempts.length };
      t.deliveries[id] = next as unknown as Tenant['deliveries'][string];
      return next;
    });
    this.send(d);
    return d;
  }

  /** Calls `observer` with every attempt once it is recorded (the integration report). */
  observe(observer: AttemptObserver): void {
    this.#observers.push(observer);
  }

  /** Lets scenarios give an item's deliveries their own chaos (a scenario step), over the control API's. */
  setChaosSource(source: ChaosSource | null): void {
    this.chaos.source = source;
  }

  /** Lets scenarios fail attempts without sending them (a receiver that is down for a while). */
  setGate(gate: ReceiverGate | null): void {
    this.#gate = gate;
  }

  /** Starts every attempt that is due now; arms a timer for the next one. */
  tick(): void {
    this.#queue.tick();
  }

  /** Resolves when no attempt is running and none is due (tests and replays wait on it). */
  async idle(): Promise<void> {
    await this.#owner.round();
    return this.#queue.idle();
  }

  async close(): Promise<void> {
    this.#queue.close();
    this.#unsubscribe();
    this.#attempts.close();
    // Attempts that already ended are recorded; those cut off by closing the sockets are not (they run again after a restart).
    this.#recorder.save();
    await this.#outbound.close();
    await this.#attempts.ended();
    this.#queue.release();
  }

  /** After a reset the dropped tenants' deliveries are gone: forget them and ignore their running attempts. */
  #forget(application: string | null): void {
    this.#attempts.forget(application);
    this.#owner.forget(application);
    this.#queue.forget(application);
  }
}
