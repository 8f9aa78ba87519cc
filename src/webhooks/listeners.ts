import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { ListenerRecord, Store, Tenant } from '../store/index.js';
import type { Delivery } from './delivery.js';
import type { AttemptResult } from './sender.js';

/** What goes to a listener: one delivery's attempt, with the body and headers to POST as they are. */
export interface RelayedDelivery {
  type: 'delivery';
  /** Names this attempt's answer. */
  ref: number;
  id: string;
  application: string;
  order_item_uuid: string;
  order_item_version: number;
  from: string | null;
  status: string;
  body: string;
  headers: Record<string, string>;
}

/** A listener's answer: what its local receiver said, and how long it took (ms). */
export interface ListenerAnswer {
  type: 'result';
  ref: number;
  status_code?: number;
  error?: string;
  duration_ms: number;
}

/** One connected listener, as the stream route gives it. */
export interface ListenerConnection {
  send(message: object): void;
  /** Ends the connection (4000: another listener took its place; 4001: its application was reset). */
  close(code: number, reason: string): void;
}

interface Waiting {
  connection: ListenerConnection;
  headers: Record<string, string>;
  started: number;
  done(result: AttemptResult): void;
}

/** How long a connection's claim on its application holds on a store shared by instances, unless renewed. */
const PRESENCE_MS = 30_000;
const ALL = '*';

/**
 * The listeners of `mock-server listen`: a listener is a delivery target of its application (or of
 * every application), beside a registered receiver, kept in the store while it is away so that
 * deliveries wait for it. Each move records a delivery for it (the dispatcher asks wants()); an
 * attempt goes over its connection when it is connected to this instance (relay()), fails when
 * none is connected ("no listener connected", retried on the schedule), and on a store shared by
 * instances is left to the instance that holds the connection (where()). The connection's answer
 * is the attempt's outcome. When a listener connects, what waits for it is made due at once.
 */
export class Listeners {
  /** This instance, as a connection's presence in the store names it. */
  readonly instance = randomUUID();
  readonly #connections = new Map<string, ListenerConnection>();
  readonly #waiting = new Map<number, Waiting>();
  #ref = 0;

  constructor(
    private readonly store: Store,
    private readonly now: (application: string) => Date,
    /** Told when deliveries were made due at once (the dispatcher looks for due work). */
    private readonly wake: () => void,
  ) {
    store.onReset((application) => {
      for (const [key, c] of this.#connections) if (application === null || key === application) c.close(4001, 'the application was reset: connect again');
    });
  }

  /** The registration that applies to an application: its own, else the one for all. */
  registration(application: string): ListenerRecord | null {
    return this.store.tenant(application).listener ?? this.store.server().listener ?? null;
  }

  /** Inside the write that moves an item: whether its webhook goes to a listener too (made a secret for it when the application has none). */
  wants(tenant: Tenant, application: string, status: string, signed: boolean): boolean {
    const listener = tenant.listener ?? this.store.server().listener ?? null;
    if (!listener || (listener.events && !listener.events.includes(status))) return false;
    if (!signed && !tenant.listener_secret) tenant.listener_secret = `whsec_${randomBytes(24).toString('base64')}`;
    return true;
  }

  /** Where an application's listener is: connected here, connected to another instance (shared store), or nowhere. */
  where(application: string): 'here' | 'elsewhere' | 'none' {
    if (this.#connections.has(application) || this.#connections.has(ALL)) return 'here';
    const on = this.registration(application)?.connected;
    // Presence is real time (a lease), like the due table's leases: another instance's ends when it stops renewing it.
    return on && on.instance !== this.instance && on.until > Date.now() ? 'elsewhere' : 'none';
  }

  /** Who is listening, for the control API and the dashboard. */
  describe(): Array<{ application: string | null; connected: boolean; since: string; events: string[] | null; forward_to: string | null }> {
    const view = (application: string | null, r: ListenerRecord) => ({
      application, since: r.since, events: r.events, forward_to: r.forward_to,
      connected: this.#connections.has(application ?? ALL) || (r.connected !== null && r.connected.until > Date.now()),
    });
    const all = this.store.server().listener;
    const own = this.store.applications().flatMap((a) => {
      const r = this.store.tenant(a).listener;
      return r ? [view(a, r)] : [];
    });
    return [...(all ? [view(null, all)] : []), ...own];
  }

  /**
   * A listener connected (application null: every application's): it takes the place of one that
   * was connected for the same, is registered (kept while it is away), and what waits for it is due now.
   */
  async connect(application: string | null, connection: ListenerConnection, info: { events: string[] | null; forward_to: string | null }): Promise<void> {
    const key = application ?? ALL;
    const before = this.#connections.get(key);
    this.#connections.set(key, connection);
    before?.close(4000, 'another listener took its place');
    const record = (old: ListenerRecord | null | undefined): ListenerRecord => ({
      since: old?.since ?? this.now(application ?? '').toISOString(), ...info,
      connected: { instance: this.instance, until: Date.now() + PRESENCE_MS },
    });
    if (application !== null) await this.store.update(application, (t) => void (t.listener = record(t.listener)));
    else await this.store.updateServer((s) => void (s.listener = record(s.listener)));
    await Promise.all((application === null ? this.store.applications() : [application]).map((a) => this.#dueNow(a)));
    this.wake();
  }

  /** Keeps a connection's presence on a store shared by instances. */
  async renew(application: string | null): Promise<void> {
    const until = Date.now() + PRESENCE_MS;
    const renew = (r: ListenerRecord | null | undefined) => (r?.connected?.instance === this.instance ? { ...r, connected: { instance: this.instance, until } } : r);
    if (application !== null) await this.store.update(application, (t) => void (t.listener = renew(t.listener) ?? null));
    else await this.store.updateServer((s) => void (s.listener = renew(s.listener)));
  }

  /**
   * A connection ended: its attempts under way fail. `stop` (the listener said so: Ctrl-C) ends the
   * registration; any other end (a sleeping laptop, a lost network) keeps it, and deliveries wait.
   */
  async disconnect(application: string | null, connection: ListenerConnection, stop: boolean): Promise<void> {
    for (const [ref, w] of this.#waiting) if (w.connection === connection) this.#finish(ref, { error: 'the listener disconnected before answering' });
    const key = application ?? ALL;
    if (this.#connections.get(key) !== connection) return;
    this.#connections.delete(key);
    const after = (r: ListenerRecord | null | undefined) => (stop ? null : r ? { ...r, connected: null } : null);
    if (application !== null) await this.store.update(application, (t) => void (t.listener = after(t.listener)));
    else await this.store.updateServer((s) => void (s.listener = after(s.listener)));
  }

  /** One attempt of a listener's delivery: over its connection here, its answer the outcome (within the deadline). */
  relay(d: Delivery, body: string, headers: Record<string, string>, deadlineMs: number): Promise<AttemptResult> {
    const connection = this.#connections.get(d.application) ?? this.#connections.get(ALL);
    if (!connection) return Promise.resolve({ error: 'no listener connected (mock-server listen)', duration_ms: 0, delivered: false });
    const ref = ++this.#ref;
    const sent = { ...headers, 'content-type': 'application/json', 'user-agent': 'mock-server-webhooks' };
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.#finish(ref, { error: `timeout after ${deadlineMs} ms: the listener did not answer` }), deadlineMs);
      this.#waiting.set(ref, { connection, headers: sent, started: performance.now(), done: (r) => (clearTimeout(timer), resolve(r)) });
      const message: RelayedDelivery = {
        type: 'delivery', ref, id: d.id, application: d.application, order_item_uuid: d.order_item_uuid, order_item_version: d.order_item_version,
        from: d.from_status ?? null, status: d.payload.order_item_status, body, headers: sent,
      };
      connection.send(message);
    });
  }

  /** A listener's answer to one of its attempts (another connection's, or a late one, is ignored). */
  answer(connection: ListenerConnection, a: ListenerAnswer): void {
    if (this.#waiting.get(a.ref)?.connection !== connection) return;
    this.#finish(a.ref, typeof a.status_code === 'number' ? { status_code: a.status_code, duration_ms: a.duration_ms } : { error: `${a.error ?? 'no answer'} (the listener's local receiver)`, duration_ms: a.duration_ms });
  }

  /** The secret a listener's deliveries of an application are signed with, and where it comes from. */
  secret(application: string, configured: string | null): { secret: string | null; source: 'receiver' | 'listener' | 'none' } {
    if (configured) return { secret: configured, source: 'receiver' };
    const own = this.store.tenant(application).listener_secret;
    return own ? { secret: own, source: 'listener' } : { secret: null, source: 'none' };
  }

  /** Makes sure an application has a secret for its listener (the first --print-secret, before any delivery). */
  async ensureSecret(application: string): Promise<void> {
    if (this.store.tenant(application).listener_secret) return;
    await this.store.update(application, (t) => void (t.listener_secret ??= `whsec_${randomBytes(24).toString('base64')}`));
  }

  #finish(ref: number, r: { status_code?: number; error?: string; duration_ms?: number }): void {
    const w = this.#waiting.get(ref);
    if (!w) return;
    this.#waiting.delete(ref);
    const duration_ms = r.duration_ms ?? Math.round((performance.now() - w.started) * 100) / 100;
    w.done({ ...r, duration_ms, delivered: r.status_code === 200, headers: w.headers });
  }

  /** A listener's pending deliveries of an application, due at once (read outside the write, so that only those keys are written). */
  async #dueNow(application: string): Promise<void> {
    const now = this.now(application).toISOString();
    const later = (Object.values(this.store.tenant(application).deliveries) as unknown as Delivery[]).filter((d) => d.target === 'listener' && d.state === 'pending' && (d.next_attempt_at ?? '') > now).map((d) => d.id);
    if (later.length === 0) return;
    await this.store.update(application, (t) => {
      for (const id of later) {
        const d = t.deliveries[id] as unknown as Delivery | undefined;
        if (d?.state === 'pending') t.deliveries[id] = { ...d, next_attempt_at: now } as unknown as Tenant['deliveries'][string];
      }
    });
  }
}
