import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { LeaseLostError, type DueRow, type DueTable, type Store, type Tenant } from '../store/index.js';
import type { Claim, DueHandler, Scheduler } from './scheduler.js';
import { SWEEP_EVERY_MS, Windows, windowKey } from './window.js';

export interface SharedOptions {
  store: Store;
  due: DueTable;
  /** The server clock: due rows are claimed at its time (plus each application's offset). */
  clock: Clock;
  /** An application's time: a row written due later wakes this instance then. */
  now: (application: string) => Date;
  /** How long a claim stays this instance's without being renewed (a dead instance's work waits this long). Default 30 s. */
  leaseMs?: number;
  /** Every this often, each kind is looked for even without a notification (a missed one, a retry come due). Default 1 s. */
  pollMs?: number;
  warn?: (message: string) => void;
}

interface KindState {
  handler: DueHandler;
  /** Claims handed to the handler and not done yet: their leases are renewed. */
  held: Map<string, Claim>;
  running: Promise<void> | null;
  next: Promise<void> | null;
  wake: { at: number; timer: NodeJS.Timeout } | null;
}

const keyOf = (c: Claim) => `${c.application}\u0000${c.key}`;

/**
 * The scheduler of instances that share a store (PostgreSQL): due work is claimed from its due
 * table (DueTable.claim: FOR UPDATE SKIP LOCKED, a lease), one round per kind at a time, as much as
 * the handler has room for. Rounds run after a commit of due work on this instance, when another
 * instance announces some (LISTEN/NOTIFY), at the due time of work written here for later, after a
 * clock move, and every `pollMs` whatever happens. Leases of held claims are renewed every third
 * of their length; an instance that dies stops renewing, and its claims go to another once they run out.
 */
export class SharedScheduler implements Scheduler {
  readonly shared = true;
  readonly stats = { claimed: {} as Record<string, number>, sweeps: 0 };
  readonly owner = randomUUID();
  readonly leaseMs: number;
  readonly #kinds = new Map<string, KindState>();
  readonly #windows = new Windows();
  /** Sweeps this instance won and has not run yet. */
  readonly #granted = new Set<string>();
  readonly #timers: NodeJS.Timeout[] = [];
  #unsubscribe: () => void = () => undefined;
  #closed = false;
  #warned = 0;
  #handedOff = 0;

  constructor(private readonly opts: SharedOptions) {
    this.leaseMs = opts.leaseMs ?? 30_000;
    opts.due.onWritten((rows) => this.#written(rows));
    opts.due.onAnnounced(() => this.poke());
  }

  register(kind: string, handler: DueHandler): void {
    this.#kinds.set(kind, { handler, held: new Map(), running: null, next: null, wake: null });
    this.opts.due.rule({ ...handler.rule, kind });
  }

  poke(kind?: string): void {
    for (const k of kind === undefined ? this.#kinds.keys() : [kind]) void this.round(k);
  }

  /** A round queued and not started yet serves every caller that comes meanwhile. */
  round(kind: string): Promise<void> {
    const s = this.#kinds.get(kind);
    if (!s || this.#closed) return Promise.resolve();
    if (s.next) return s.next;
    const next: Promise<void> = (s.running ?? Promise.resolve())
      .then(() => {
        s.next = null;
        return this.#round(kind, s);
      })
      .catch((e: unknown) => this.#warn(`looking for due ${kind} work failed (${(e as Error).message})`))
      .finally(() => {
        if (s.running === next) s.running = null;
      });
    s.next = next;
    s.running = next;
    return next;
  }

  async #round(kind: string, s: KindState): Promise<void> {
    const room = s.handler.limit - s.held.size;
    if (room <= 0 || this.#closed) return;
    let claims: Claim[];
    try {
      claims = await this.opts.due.claim(kind, this.owner, this.opts.clock.now().getTime(), this.leaseMs, room);
    } catch (e) {
      return this.#warn(`due ${kind} work could not be claimed (${(e as Error).message}); trying again`);
    }
    if (claims.length === 0) return;
    this.stats.claimed[kind] = (this.stats.claimed[kind] ?? 0) + claims.length;
    for (const c of claims) s.held.set(keyOf(c), c);
    try {
      await s.handler.run(claims);
    } catch (e) {
      this.#warn(`claimed ${kind} work failed (${(e as Error).message}); it is given back`);
      for (const c of claims) this.release(kind, c);
    }
    // There may be more: look again once this round's work is under way.
    if (claims.length === room) this.poke(kind);
  }

  async record<T>(kind: string, claim: Claim, application: string, fn: (tenant: Tenant) => T): Promise<T> {
    try {
      return await this.opts.store.update(application, fn, [{ kind, ...claim }]);
    } catch (e) {
      // Not written, so the lease was not given back with it: given back now, for the work to run again soon.
      if (!(e instanceof LeaseLostError)) this.release(kind, claim);
      throw e;
    } finally {
      this.#kinds.get(kind)?.held.delete(keyOf(claim));
    }
  }

  done(kind: string, claim: Claim): void {
    this.release(kind, claim);
  }

  /** Changes nothing in the database when the lease is no longer this instance's (its token no longer matches); drop() neither. */
  release(kind: string, claim: Claim, at?: number): void {
    if (!this.#kinds.get(kind)?.held.delete(keyOf(claim))) return;
    void this.opts.due.release(kind, claim, at).catch(() => undefined);
  }

  handOff(kind: string, claim: Claim): void {
    if (!this.#kinds.get(kind)?.held.delete(keyOf(claim))) return;
    // Not polled again here: the instance that can do it is poked by the announcement and claims it
    // first. At most one a second, so that instances handing work to one that died (until its
    // presence lapses) do not bounce it between them as fast as the database answers.
    const tell = Date.now() - this.#handedOff >= 1000;
    if (tell) this.#handedOff = Date.now();
    void this.opts.due.release(kind, claim).then(() => tell && this.opts.due.announce(), () => undefined);
  }

  drop(kind: string, claim: Claim): void {
    if (!this.#kinds.get(kind)?.held.delete(keyOf(claim))) return;
    void this.opts.due.drop(kind, claim).catch(() => undefined);
  }

  /**
   * The first call of a window on this instance asks the database for the window (one instance
   * wins it); the sweep then rides on this instance's next call for that job, so that a request
   * never waits for the database's answer.
   */
  sweepDue(application: string, kind: string, now: number): boolean {
    const key = windowKey(application, kind);
    if (this.#granted.delete(key)) {
      this.stats.sweeps++;
      return true;
    }
    if (!this.#closed && this.#windows.take(key, now)) {
      void this.opts.due.window(application, kind, now, SWEEP_EVERY_MS).then(
        (won) => void (won && this.#granted.add(key)),
        () => undefined,
      );
    }
    return false;
  }

  start(): void {
    if (this.#timers.length > 0 || this.#closed) return;
    const poll = setInterval(() => this.poke(), this.opts.pollMs ?? 1000);
    const renew = setInterval(() => this.#renew(), Math.max(10, Math.floor(this.leaseMs / 3)));
    for (const t of [poll, renew]) t.unref();
    this.#timers.push(poll, renew);
    this.#unsubscribe = this.opts.clock.onChange?.(() => this.poke()) ?? (() => undefined);
    this.poke();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const t of this.#timers) clearInterval(t);
    this.#unsubscribe();
    for (const s of this.#kinds.values()) if (s.wake) clearTimeout(s.wake.timer);
    await Promise.allSettled([...this.#kinds.values()].map((s) => s.running));
    // What this instance still holds goes to the others now rather than when the leases run out.
    await this.opts.due.releaseAll(this.owner).catch(() => undefined);
  }

  /** Extends the leases held; one found taken over (it ran out first) is dropped, and its handler told. */
  #renew(): void {
    for (const [kind, s] of this.#kinds) {
      if (s.held.size === 0) continue;
      const held = [...s.held.values()];
      this.opts.due.renew(kind, held, this.leaseMs).then(
        (renewed) => {
          const still = new Set(renewed.map(keyOf));
          const lost = held.filter((c) => !still.has(keyOf(c)) && s.held.get(keyOf(c)) === c);
          if (lost.length === 0) return;
          for (const c of lost) s.held.delete(keyOf(c));
          this.opts.warn?.(`the leases on ${lost.length} ${kind} claim(s) ran out and were taken over by another instance; this one stops working on them`);
          s.handler.lost?.(lost);
        },
        (e: unknown) => this.#warn(`leases could not be renewed (${(e as Error).message})`),
      );
    }
  }

  /** A commit of due work on this instance: what is due now is claimed now (and the others told); what is due later wakes this instance then. */
  #written(rows: DueRow[]): void {
    const serverNow = this.opts.clock.now().getTime();
    const now: string[] = [];
    for (const r of rows) {
      if (r.at === null) continue;
      const ahead = this.opts.now(r.app).getTime() - serverNow;
      if (r.at - ahead <= serverNow) now.push(r.kind);
      else this.#wakeAt(r.kind, r.at - ahead);
    }
    if (now.length === 0) return;
    for (const kind of new Set(now)) this.poke(kind);
    this.opts.due.announce();
  }

  /** A round at `at` (server time); only the earliest wake is kept, the poll finds the rest. */
  #wakeAt(kind: string, at: number): void {
    const s = this.#kinds.get(kind);
    if (!s || this.#closed || (s.wake && s.wake.at <= at)) return;
    if (s.wake) clearTimeout(s.wake.timer);
    const delay = Math.min(Math.max(at - this.opts.clock.now().getTime(), 0), 2 ** 31 - 1);
    const timer = setTimeout(() => {
      s.wake = null;
      this.poke(kind);
    }, delay);
    timer.unref();
    s.wake = { at, timer };
  }

  #warn(message: string): void {
    if (Date.now() - this.#warned < 10_000) return;
    this.#warned = Date.now();
    this.opts.warn?.(message);
  }
}
