import type { Clock } from '../clock.js';
import type { Store, Tenant } from '../store/index.js';
import type { Claim, Scheduler } from '../schedule/index.js';
import { ApiError, clip, errors } from '../http/errors.js';
import { serializePayload, type OrderItemSnapshot } from './payload.js';
import { deliveryHeaders } from './signer.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { WebhookSender, type AttemptResult } from './sender.js';
import { SendSlots } from './slots.js';
import { WebhookTargets, type ReceiverSource, type WebhookTarget } from './targets.js';
import { logAttempt, receiverForLog, type AttemptLogger } from './attempt-log.js';
import { ChaosSettings, type ChaosConfig, type ChaosMark, type ChaosSource } from './chaos.js';
import { waitingReason, type DeliveryView, type DeliveryWait } from './waiting.js';
import { afterAttempt, chainOf, compareDeliveries, DEFAULT_RETRY_SCHEDULE, deliveryDue, listDeliveries, recordDelivery, retryDelays, type Delivery, type DeliveryAttempt, type DeliveryFilter } from './delivery.js';
import { Listeners } from './listeners.js';

export type { ReceiverSource, WebhookTarget } from './targets.js';

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
  /** Trouble at warn; one line per attempt (failed ones at warn, delivered ones at info). */
  /** A shared sandbox without --allow-private-receivers: receivers set by partners reach public addresses only. */
  guardPartners?: boolean;
  /** Seeds the chaos draws (duplicates, delays): the server's --seed. */
  seed?: number;
  logger?: AttemptLogger;
}

/** Asked before each attempt: a reason makes it a failed attempt without a request (scenario "receiver down"). */
export type ReceiverGate = (delivery: Delivery, now: Date) => string | null;

/** An attempt that ended, waiting for #save() to record it (attempt null: it threw, nothing to record). */
interface Finished {
  d: Delivery;
  generation: string;
  attempt: DeliveryAttempt | null;
  delivered: boolean;
  /** Where it went (password hidden), for the log line; null without a webhook URL. */
  receiver: string | null;
  /** A chaos send of a delivery already delivered: recorded without changing its state. */
  extra?: boolean;
}

type Sent = AttemptResult & { chaos?: ChaosMark };

/** Told about each recorded attempt: the delivery, the attempt, and the delivery after it. */
export type AttemptObserver = (delivery: Delivery, attempt: DeliveryAttempt, next: Delivery) => void;

/**
 * Sends "Update order item" webhooks. State lives in the store (tenant.deliveries); in memory there
 * is only an index: per application, per order item, its pending deliveries in version order. Only
 * the head of an item's queue is ever attempted, so a later version waits until earlier ones are
 * delivered or failed, while different items are sent concurrently. tick() starts every attempt that
 * is due on the server clock and has a sending slot (SendSlots: a share per application, applications
 * served in turn); it runs from a timer armed for the next due time, after every clock move and after
 * each attempt.
 */
export class WebhookDispatcher {
  readonly sender: WebhookSender;
  readonly #targets: WebhookTargets;
  #delays: number[];
  /** Application -> order item -> its pending deliveries; an application served moves to the end. */
  readonly #queues = new Map<string, Map<string, Delivery[]>>();
  readonly #apps = new Map<string, string>();
  readonly #inFlight = new Map<string, Promise<void>>();
  /** Bumped by a reset (all, or per application): attempts started before it are not recorded. */
  #generation = 0;
  readonly #appGeneration = new Map<string, number>();
  #timer: NodeJS.Timeout | null = null;
  #tickQueued = false;
  #finished: Finished[] = [];
  #saveQueued = false;
  #closed = false;
  #gate: ReceiverGate | null = null;
  #idleWaiters: Array<() => void> = [];
  readonly #unsubscribe: () => void;
  readonly #wall: () => Date;
  readonly #now: (application: string) => Date;
  readonly #slots: SendSlots;
  /** Aborted by close(): ends chaos delays at once. */
  readonly #closing = new AbortController();

  /** The control API's chaos settings (PUT /__admin/webhooks/chaos). */
  readonly chaos: ChaosSettings;
  #chaosSource: ChaosSource | null = null;
  readonly #observers: AttemptObserver[] = [];
  /** Shared store: the claims this instance holds, by delivery id (only those are in #queues). */
  readonly #claims: Map<string, Claim> | null;
  /** `mock-server listen`: a delivery target of its application beside the receiver. */
  readonly listeners: Listeners;
  /** A move's delivery to the listener, recorded beside the receiver's (record() returns one, send() sends both). */
  readonly #also = new WeakMap<Delivery, Delivery>();

  constructor(private readonly opts: DispatcherOptions) {
    this.chaos = new ChaosSettings(opts.store, opts.seed ?? 1);
    // Connections per receiver as many as requests in all: applications sharing a receiver are held to their shares by the slots, not by undici's pool.
    const total = opts.concurrency ?? 1024;
    this.sender = new WebhookSender({ timeoutMs: opts.timeoutMs, deadlineMs: opts.deadlineMs, connections: total });
    this.#targets = new WebhookTargets(opts.store, opts.flags ?? { url: null, secret: null }, opts.guardPartners);
    this.#now = opts.now ?? (() => opts.clock.now());
    this.#delays = retryDelays(opts.schedule ?? DEFAULT_RETRY_SCHEDULE);
    this.#wall = opts.wallClock ?? (() => new Date());
    this.#slots = new SendSlots(total, Math.min(opts.perApplication ?? 256, total));
    this.#unsubscribe = opts.clock.onChange?.(() => this.#queueTick()) ?? (() => undefined);
    this.#claims = opts.scheduler?.shared ? new Map() : null;
    this.listeners = new Listeners(opts.store, this.#now, () => this.#queueTick());
    opts.scheduler?.register('webhook', { rule: { field: 'deliveries', due: deliveryDue }, limit: total, run: (claims) => this.#claimed(claims) });
    opts.store.onReset((app) => {
      this.#forget(app);
      // An application's chaos went with its state; a reset of everything drops the one for all too.
      if (app === null) void this.chaos.clear().catch((err: unknown) => opts.logger?.warn({ err }, 'chaos for all could not be dropped'));
    });
  }

  /** At start, before start(): --webhook-url replaces a server-wide receiver stored by an earlier run. */
  applyFlags(): Promise<void> {
    return this.#targets.start();
  }

  /** Indexes every delivery in the store and resumes the pending ones (after a restart); shared: the scheduler's claims bring them. */
  start(): void {
    if (this.#claims) return;
    for (const app of this.opts.store.applications()) {
      for (const raw of Object.values(this.opts.store.tenant(app).deliveries)) this.#track(raw as unknown as Delivery);
    }
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
    // Shared: the commit that recorded it has woken the scheduler, which claims it here or elsewhere.
    if (this.#claims) return void this.#apps.set(delivery.id, delivery.application);
    this.#track(delivery);
    this.#queueTick();
  }

  /** record() and send() in one go, for callers without their own store.update. */
  async enqueue(application: string, snapshot: OrderItemSnapshot): Promise<Delivery | null> {
    const d = await this.opts.store.update(application, (t) => this.record(t, application, snapshot));
    this.send(d);
    return d;
  }

  get(id: string): Delivery | undefined {
    let app = this.#apps.get(id);
    // Shared: a delivery recorded by another instance is found where it is.
    if (app === undefined && this.#claims) app = this.opts.store.applications().find((a) => this.opts.store.tenant(a).deliveries[id]);
    return app === undefined ? undefined : (this.opts.store.tenant(app).deliveries[id] as unknown as Delivery | undefined);
  }

  /** Deliveries oldest first, optionally of one application and/or one order item. */
  list(filter: DeliveryFilter = {}): Delivery[] {
    return listDeliveries(this.opts.store, filter);
  }

  /** Deliveries oldest first, each with why it waits (the control API's and the dashboard's view). */
  views(filter: DeliveryFilter = {}): DeliveryView[] {
    const list = this.list(filter);
    const itemKey = (d: Delivery) => `${d.application}\u0000${chainOf(d)}`;
    const heads = new Map<string, Delivery>();
    for (const d of list) {
      const head = heads.get(itemKey(d));
      if (d.state === 'pending' && (!head || compareDeliveries(d, head) < 0)) heads.set(itemKey(d), d);
    }
    const headWaits = new Map<string, DeliveryWait | null>();
    const wait = (d: Delivery, head: Delivery) => {
      const now = this.#now(d.application);
      const due = new Date(Math.max(Date.parse(d.next_attempt_at ?? ''), now.getTime()) || now.getTime());
      const ctx = { now, head, inFlight: this.#inFlight.has(d.id), hasReceiver: d.target === 'listener' || this.target(d.application) !== null, blocked: this.#gate?.(d, due) ?? null, chaos: this.#chaosOf(d), delays: this.#delays };
      return waitingReason(d, ctx, head.id === d.id ? null : headWaits.get(head.id));
    };
    for (const head of heads.values()) headWaits.set(head.id, wait(head, head));
    return list.map((d) => ({ ...d, waiting: d.state === 'pending' ? wait(d, heads.get(itemKey(d)) ?? d) : null }));
  }

  /** One delivery with why it waits. */
  view(d: Delivery): DeliveryView {
    return this.views({ application: d.application, order_item_uuid: d.order_item_uuid }).find((x) => x.id === d.id) ?? { ...d, waiting: null };
  }

  /** Sends a delivery again now, with a fresh round of retries; 404 unknown, 409 while an attempt is running. */
  async redeliver(id: string): Promise<Delivery> {
    const app = this.get(id)?.application;
    if (app === undefined) throw errors.notFound(`No webhook delivery ${clip(id)}`);
    if (this.#inFlight.has(id)) throw new ApiError(409, '0', `Webhook delivery ${id} is being attempted right now: try again when the attempt ends`);
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
    this.#chaosSource = source;
  }

  #chaosOf(d: Delivery): ChaosConfig | null {
    return this.#chaosSource?.(d) ?? this.chaos.of(d.application);
  }

  /** Lets scenarios fail attempts without sending them (a receiver that is down for a while). */
  setGate(gate: ReceiverGate | null): void {
    this.#gate = gate;
  }

  /** Starts every attempt that is due now; arms a timer for the next one. */
  tick(): void {
    this.#tickQueued = false;
    if (this.#closed) return;
    const serverNow = this.opts.clock.now().getTime();
    // The next due time on the server clock, which the timer follows: an application's due times
    // are on its own clock, ahead of the server's by its offset.
    let earliest = Infinity;
    const served: string[] = [];
    for (const [app, items] of this.#queues) {
      if (this.#slots.full) break;
      const now = this.#now(app).getTime();
      let started = false;
      for (const [key, queue] of items) {
        // An application at its share waits for its own attempts to end (tick runs after each).
        if (!this.#slots.free(app)) break;
        if (queue[0] && this.#inFlight.has(queue[0].id)) continue;
        const head = this.#head(items, key, queue);
        if (!head || this.#inFlight.has(head.id)) continue;
        const due = Date.parse(head.next_attempt_at ?? '');
        if (due > now) {
          earliest = Math.min(earliest, due - (now - serverNow));
          continue;
        }
        this.#attempt(head);
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

  /** Resolves when no attempt is running and none is due (tests and replays wait on it). */
  async idle(): Promise<void> {
    if (this.#claims) await this.opts.scheduler?.round('webhook');
    const p = new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
    this.tick();
    return p;
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#unsubscribe();
    this.#closing.abort();
    this.#slots.close();
    // Attempts that already ended are recorded; those cut off by closing the sockets are not (they run again after a restart).
    this.#save();
    await Promise.all([this.sender.close(), this.#guarded?.close()]);
    await Promise.allSettled([...this.#inFlight.values()]);
    for (const w of this.#idleWaiters.splice(0)) w();
  }

  /** The live head of an item's queue, dropping entries that are no longer pending. */
  #head(items: Map<string, Delivery[]>, key: string, queue: Delivery[]): Delivery | null {
    while (queue.length > 0) {
      const cur = this.get(queue[0]!.id);
      if (cur && cur.state === 'pending') return cur;
      this.#unclaim(queue.shift()!.id);
    }
    items.delete(key);
    return null;
  }

  #track(d: Delivery): void {
    this.#apps.set(d.id, d.application);
    if (d.state !== 'pending') return;
    let items = this.#queues.get(d.application);
    if (!items) this.#queues.set(d.application, (items = new Map()));
    const queue = items.get(chainOf(d)) ?? [];
    if (queue.some((q) => q.id === d.id)) return;
    queue.push(d);
    queue.sort(compareDeliveries);
    items.set(chainOf(d), queue);
  }

  #attempt(d: Delivery): void {
    const generation = this.#gen(d.application);
    const at = this.#now(d.application);
    const receiver = this.opts.logger ? receiverForLog(this.target(d.application)?.url) : null;
    const record = (x: Delivery, r: Sent, when: Date, extra = false) => {
      const attempt: DeliveryAttempt = {
        at: when.toISOString(),
        ...(r.status_code !== undefined ? { status_code: r.status_code } : { error: r.error ?? 'unknown error' }),
        duration_ms: r.duration_ms,
        ...(r.chaos ? { chaos: r.chaos } : {}),
        ...(r.headers ? { headers: r.headers } : {}),
      };
      this.#finished.push({ d: x, generation, attempt, delivered: r.delivered, receiver, extra });
    };
    const run = (async () => {
      // Up to the first await this runs within tick(): a request takes its slot from tick()'s share,
      // a chaos delay takes one only once it is over, an attempt without a request takes none.
      const plan = this.#plan(d, at);
      if (typeof plan !== 'number') return record(d, plan, at);
      if (plan === 0) this.#slots.take(d.application);
      else if (!(await this.#delay(d.application, plan))) return;
      try {
        const result: Sent = plan > 0 ? { ...(await this.#post(d)), chaos: 'delay' } : await this.#post(d);
        if (this.#closed) return;
        record(d, result, at);
        if (result.delivered) await this.#chaosAfterDelivery(d, (x, r, when) => record(x, r, when, true));
      } finally {
        this.#slots.release(d.application);
      }
    })()
      .catch((err: unknown) => {
        this.opts.logger?.warn({ err, delivery: d.id }, 'webhook attempt failed unexpectedly');
        this.#finished.push({ d, generation, attempt: null, delivered: false, receiver });
      })
      .finally(() => this.#queueSave());
    this.#inFlight.set(d.id, run);
  }

  /** Chaos after a delivery got its 200: the same delivery once more, or the item's previous one again. */
  async #chaosAfterDelivery(d: Delivery, record: (x: Delivery, r: Sent, at: Date) => void): Promise<void> {
    const chaos = this.#chaosOf(d);
    if (!chaos) return;
    if (chaos.duplicate > 0 && this.chaos.draw(d.application, 'duplicate') < chaos.duplicate) {
      const at = this.#now(d.application);
      record(d, { ...(await this.#post(d)), chaos: 'duplicate' }, at);
    }
    if (chaos.reorder) {
      const earlier = this.list({ application: d.application, order_item_uuid: d.order_item_uuid })
        .filter((x) => x.state === 'delivered' && x.target === d.target && x.order_item_version < d.order_item_version)
        .sort((a, b) => b.order_item_version - a.order_item_version)[0];
      if (earlier && !this.#closed) {
        const at = this.#now(d.application);
        record(earlier, { ...(await this.#post(earlier)), chaos: 'reorder' }, at);
      }
    }
  }

  /**
   * Records every attempt that ended since the last save in one store write per application (a
   * burst of answers costs one write, not one each), then frees their items for their next attempt.
   * An attempt stays in flight until its outcome is in the state, so tick() never starts it twice.
   */
  #save(): void {
    this.#saveQueued = false;
    const done = this.#finished.splice(0);
    const byApp = new Map<string, Finished[]>();
    for (const f of done) {
      if (!f.attempt || f.generation !== this.#gen(f.d.application) || !this.get(f.d.id)) continue;
      const list = byApp.get(f.d.application) ?? [];
      list.push(f);
      byApp.set(f.d.application, list);
    }
    for (const [application, list] of byApp) {
      const logged: Array<[Finished, Delivery]> = [];
      let settled = false;
      // Once the outcomes are in the state (in memory): log them and free their items. A store shared
      // by instances runs the function later (under the application's lock); if the write fails
      // before it ran, the items are freed all the same, and the attempt is made again.
      const settle = () => {
        if (settled) return;
        settled = true;
        for (const [f, next] of logged) {
          if (!f.attempt) continue;
          if (this.opts.logger) logAttempt(this.opts.logger, f.d, f.attempt, f.receiver, next);
          for (const o of this.#observers) o(f.d, f.attempt, next);
        }
        for (const f of list) {
          this.#inFlight.delete(f.d.id);
          this.#untrack(f.d);
        }
        this.#queueTick();
      };
      this.opts.store
        .update(application, (t) => {
          for (const f of list) {
            const cur = t.deliveries[f.d.id] as unknown as Delivery;
            // A chaos send adds to the log of a delivery that is delivered already.
            const next = f.extra ? { ...cur, attempts: [...cur.attempts, f.attempt as DeliveryAttempt] } : afterAttempt(cur, f.attempt as DeliveryAttempt, f.delivered, this.#delays);
            t.deliveries[f.d.id] = next as unknown as Tenant['deliveries'][string];
            logged.push([f, next]);
          }
          settle();
        })
        .catch((err: unknown) => {
          this.opts.logger?.warn({ err, deliveries: list.map((f) => f.d.id) }, 'webhook delivery state not saved');
          settle();
        });
    }
    const saving = new Set([...byApp.values()].flat().map((f) => f.d.id));
    for (const { d } of done) {
      if (saving.has(d.id)) continue;
      this.#inFlight.delete(d.id);
      this.#untrack(d, true);
    }
    this.#queueTick();
  }

  #queueSave(): void {
    if (this.#saveQueued) return;
    this.#saveQueued = true;
    setImmediate(() => this.#save());
  }

  /**
   * Before an attempt's request: the outcome when there is none (no URL, the scenario gate,
   * chaos fail_first), else the chaos delay to wait first in ms (0: none).
   */
  #plan(d: Delivery, now: Date): Sent | number {
    if (d.target !== 'listener' && !this.target(d.application)) return { error: 'no webhook URL is configured for this application', duration_ms: 0, delivered: false };
    const blocked = this.#gate?.(d, now);
    if (blocked) return { error: blocked, duration_ms: 0, delivered: false };
    const chaos = this.#chaosOf(d);
    const inRound = d.attempts.length - d.round_start;
    if (chaos && inRound < chaos.fail_first) {
      return { error: `chaos: fail_first (attempt ${inRound + 1} of the first ${chaos.fail_first} fails without a request)`, duration_ms: 0, delivered: false, chaos: 'fail_first' };
    }
    const [min, max] = chaos?.delay_ms ?? [0, 0];
    return max > 0 ? Math.round(min + this.chaos.draw(d.application, 'delay') * (max - min)) : 0;
  }

  /** A chaos delay, outside the sending slots, then a slot; false when the dispatcher closed meanwhile. */
  async #delay(application: string, ms: number): Promise<boolean> {
    try {
      await sleep(ms, undefined, { signal: this.#closing.signal });
    } catch {
      return false;
    }
    return this.#slots.acquire(application);
  }

  /** The POST itself, with the delivery's id and timestamp, signed when the application has a secret. */
  async #post(d: Delivery): Promise<AttemptResult> {
    if (d.target === 'listener') {
      const body = serializePayload(d.payload);
      const { secret } = this.listeners.secret(d.application, this.secretOf(d.application));
      return this.listeners.relay(d, body, deliveryHeaders({ id: d.id, body, secret, headerPrefix: this.opts.headerPrefix, at: this.#wall() }), this.sender.deadlineMs);
    }
    const target = this.target(d.application);
    if (!target) return { error: 'no webhook URL is configured for this application', duration_ms: 0, delivered: false };
    const body = serializePayload(d.payload);
    const headers = deliveryHeaders({ id: d.id, body, secret: target.secret, headerPrefix: this.opts.headerPrefix, at: this.#wall() });
    return (target.publicOnly ? this.#publicOnly() : this.sender).send(target.url, body, headers);
  }

  #guarded: WebhookSender | null = null;
  /** A sender that connects to public addresses only, for receivers partners set on a shared sandbox (made when first needed). */
  #publicOnly(): WebhookSender {
    return (this.#guarded ??= new WebhookSender({ timeoutMs: this.sender.timeoutMs, deadlineMs: this.sender.deadlineMs, connections: this.opts.concurrency ?? 1024, publicOnly: true }));
  }

  /** Shared store: deliveries claimed for this instance, read once their application is up to date, then sent as if recorded here. */
  async #claimed(claims: Claim[]): Promise<void> {
    const apps = [...new Set(claims.map((c) => c.application))];
    await Promise.all(apps.map((a) => this.opts.store.sync?.(a)));
    for (const c of claims) {
      const d = this.opts.store.tenant(c.application).deliveries[c.key] as unknown as Delivery | undefined;
      // Delivered, failed or reset meanwhile: nothing is due any more.
      if (!d || d.state !== 'pending') {
        this.opts.scheduler?.drop('webhook', c);
        continue;
      }
      // The listener's connection is on another instance: that one sends it (told at once, it claims it).
      if (d.target === 'listener' && this.listeners.where(d.application) === 'elsewhere') {
        this.opts.scheduler?.handOff('webhook', c);
        continue;
      }
      this.#claims?.set(d.id, c);
      this.#track(d);
    }
    this.#queueTick();
  }

  /**
   * Shared store: an attempt's outcome is written (its row's lease given back with it): the
   * delivery leaves this instance, and its next attempt is claimed anew. Given back at once when
   * nothing was written.
   */
  #untrack(d: Delivery, unwritten = false): void {
    const claim = this.#claims?.get(d.id);
    if (!claim) return;
    const items = this.#queues.get(d.application);
    const queue = items?.get(chainOf(d));
    const i = queue?.findIndex((q) => q.id === d.id) ?? -1;
    if (queue && i >= 0) queue.splice(i, 1);
    if (items && queue?.length === 0) items.delete(chainOf(d));
    this.#claims?.delete(d.id);
    if (unwritten) this.opts.scheduler?.release('webhook', claim);
    else this.opts.scheduler?.done('webhook', claim);
  }

  #unclaim(id: string): void {
    const claim = this.#claims?.get(id);
    if (!claim) return;
    this.#claims?.delete(id);
    this.opts.scheduler?.done('webhook', claim);
  }

  #arm(earliest: number, now: number): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (earliest === Infinity) return;
    this.#timer = setTimeout(() => this.#queueTick(), Math.min(Math.max(earliest - now, 0), 2 ** 31 - 1));
    this.#timer.unref();
  }

  #queueTick(): void {
    if (this.#tickQueued || this.#closed) return;
    this.#tickQueued = true;
    setImmediate(() => this.tick());
  }

  #checkIdle(): void {
    if (this.#inFlight.size > 0 || this.#tickQueued || this.#idleWaiters.length === 0) return;
    for (const w of this.#idleWaiters.splice(0)) w();
  }

  #gen(application: string): string {
    return `${this.#generation}:${this.#appGeneration.get(application) ?? 0}`;
  }

  /** After a reset the dropped tenants' deliveries are gone: forget them and ignore their running attempts. */
  #forget(application: string | null): void {
    if (application === null) this.#generation++;
    else this.#appGeneration.set(application, (this.#appGeneration.get(application) ?? 0) + 1);
    if (application === null) this.#queues.clear();
    else this.#queues.delete(application);
    // Their due rows went with them.
    for (const [id, c] of this.#claims ?? []) if (application === null || c.application === application) this.#unclaim(id);
    for (const [id, app] of this.#apps) if (application === null || app === application) this.#apps.delete(id);
  }
}
