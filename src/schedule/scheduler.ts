import type { DueClaim, DueRule, Tenant } from '../store/index.js';

/** One piece of due work this instance claimed: its record's application and key, and its fencing token. */
export type Claim = DueClaim;

/** What does one kind of due work (webhook deliveries, scenario steps). */
export interface DueHandler {
  /** How a record of the handler's collection says when it is due (kept beside it by a shared store). */
  rule: Omit<DueRule, 'kind'>;
  /** Most claims held at once (queued or under way): what the handler can take on. */
  limit: number;
  /**
   * Work claimed from a store shared by instances: do it and write its outcome with record(), or
   * tell done() (written otherwise), release() (not done) or drop() (not due).
   */
  run(claims: Claim[]): void | Promise<void>;
  /** Claims whose lease this instance lost (it ran out and another instance claimed the work): stop working on them. */
  lost?(claims: Claim[]): void;
  /** One process holds all the work (file and memory stores): look at everything that is due. */
  scan?(): void | Promise<void>;
}

/**
 * Where due work is claimed: webhook deliveries and their retries, scenario steps, the retention
 * sweep. On the file and memory stores one process owns all the work (local.ts: recording work is
 * claiming it, no database). On a store shared by instances (shared.ts) each piece is claimed from
 * the database with a lease, so that it runs on one instance, and on another once the lease of an
 * instance that died runs out.
 */
export interface Scheduler {
  /** false: this process owns every piece of work it records or loads; true: only what it claims. */
  readonly shared: boolean;
  readonly stats: { claimed: Record<string, number>; sweeps: number };
  register(kind: string, handler: DueHandler): void;
  /** Looks for due work of `kind` (all kinds when none) soon: a clock moved, room freed up. */
  poke(kind?: string): void;
  /** Looks for due work of `kind` now; resolves once what was found has been handed over. */
  round(kind: string): Promise<void>;
  /**
   * Writes the outcome of a claim's work: `fn` runs under the application's lock only while the
   * claim's lease is still this instance's, and the write gives the lease back. Else nothing is
   * written and it rejects with LeaseLostError: another instance holds the work now.
   */
  record<T>(kind: string, claim: Claim, application: string, fn: (tenant: Tenant) => T): Promise<T>;
  /** A claim's work is done, its outcome written: its lease is given back (already, when record() wrote it). */
  done(kind: string, claim: Claim): void;
  /** A claim given back undone (at: its due time on its application's clock, when that is known). */
  release(kind: string, claim: Claim, at?: number): void;
  /** A claim this instance cannot do (another holds what it needs: a listener's connection), given back as it is and the others told at once. */
  handOff(kind: string, claim: Claim): void;
  /** A claim whose record is due no more: its row goes. */
  drop(kind: string, claim: Claim): void;
  /**
   * Whether an application's periodic job `kind` (the retention sweep of tokens or carts) runs
   * with this call: at most once per window of its application's time, on one instance.
   */
  sweepDue(application: string, kind: string, now: number): boolean;
  start(): void;
  close(): Promise<void>;
}
