import type { ServerState, Tenant } from './schema.js';
import type { SharedJournal } from './journal.js';

/** A state problem the user must fix (the CLI prints the message and exits 2, no stack trace). */
export class StoreError extends Error {
  readonly userFacing = true;
  constructor(message: string) {
    super(message);
    this.name = 'StoreError';
  }
}

export interface StoreStats {
  /** update() and reset() calls that changed state. */
  writes: number;
  /** Disk writes that acknowledged writers (log appends and compactions). */
  flushes: number;
  compactions: number;
}

export interface StoreOptions {
  /** Fold the log into the state file when it grows past this; default max(8 MB, the state file's size). */
  compactBytes?: number;
  /** Told about trouble that no request answers for (a failed background compaction, a recovery). */
  warn?: (message: string) => void;
}

/**
 * The store every route uses, whichever implementation runs: the file store (file/, also 'memory')
 * or the PostgreSQL store (postgres/). The members marked optional are what a store shared by
 * several instances needs; the file and memory stores leave them out, and the app adds their hooks
 * only for a store that has them, so the embedded default pays nothing.
 */
export interface Store {
  /** Absolute path of the state file, or 'memory', or the database's URL without its password. */
  readonly location: string;
  /** The write-ahead log beside the state file, or null for memory. */
  readonly logLocation: string | null;
  readonly stats: Readonly<StoreStats>;
  /** A tenant to read (empty and frozen when the application has no state). Do not mutate: use update(). */
  tenant(application: string): Readonly<Tenant>;
  /** Applications that have state. */
  applications(): string[];
  /** Server-wide state (the clock's offset, the default webhook target). */
  server(): Readonly<ServerState>;
  /** Changes the server-wide state; resolves once it is durable. */
  updateServer(fn: (server: ServerState) => void): Promise<void>;
  /**
   * Runs `fn` on the tenant (synchronously: no awaits inside) and resolves with its result once a
   * write holding the change is on disk. If `fn` throws, its changes are undone and nothing is written.
   * Only what `fn` reaches through its `tenant` argument is tracked: `tenant.orders[id].status = 'OK'`
   * is written, but mutating a record fetched earlier with tenant() is not (it would be lost by a
   * crash). Reading a key inside `fn` marks it written; iterating a whole collection marks all of it.
   * `fn` may run more than once (a store shared by instances runs it again, its changes undone, when
   * another instance wrote the tenant meanwhile): it changes nothing but the tenant, and what it
   * returns is the run that was written. Anything else is done after the promise resolves.
   *
   * `leases` (a store shared by instances): the claims of due work whose outcome this write records.
   * It runs only while every one of them is still held, and gives them back in the same transaction;
   * else `fn` does not run and it rejects with LeaseLostError (another instance took the work over).
   */
  update<T>(application: string, fn: (tenant: Tenant) => T, leases?: Lease[]): Promise<T>;
  /** Drops one tenant's state, or everything; durable when it resolves. */
  reset(application?: string): Promise<void>;
  /** Called after every reset (e.g. to cancel timers of the dropped tenant); null = all. */
  onReset(listener: (application: string | null) => void): void;
  /** Resolves when everything written so far is on disk and a compaction under way has ended. */
  flush(): Promise<void>;
  /** Flushes, folds the log into the state file and closes it. */
  close(): Promise<void>;

  /** 'postgres' for the PostgreSQL store; absent: the file store ('memory' when location is). */
  readonly kind?: 'postgres';
  /**
   * Brings the cached tenant up to the database (writes acknowledged on any instance before the call
   * are then visible to tenant()); rejects with a 503 error when the database does not answer. With
   * `holding` (a version, as a claim names its record's), nothing is read, nor waited for, when the
   * cache already holds that version: enough to read the claimed records, not for the latest state.
   */
  sync?(application: string, holding?: number): Promise<void> | void;
  /** sync() of every application and of the server state: for views across applications. */
  syncAll?(): Promise<void> | void;
  /** Resolves when the database answers (health). */
  ping?(): Promise<void>;
  /** Told when a sync finds server state written by another instance (the clock follows it). */
  onServerChange?(listener: (server: Readonly<ServerState>) => void): void;
  /** Due work kept beside the state, claimed by the instances that share it (src/schedule/). */
  readonly due?: DueTable;
  /** The request journal of every instance; absent: each instance keeps its own in memory. */
  readonly journal?: SharedJournal;
  /** Tells the other instances which topics of the dashboard's live events changed here; best effort. */
  announce?(topics: string[]): void;
  /** Told of the topics another instance announced. */
  onAnnounce?(listener: (topics: string[]) => void): void;
}

/** When a record of a tenant's collection is due (its application's clock, ms); null: it is not. */
export interface DueRule {
  /** The tenant collection whose records carry due work (deliveries, scenario_runs). */
  field: string;
  kind: string;
  due(value: unknown): DueTime | null;
}

export interface DueTime {
  at: number;
  /** Records of one chain run one at a time, lowest rank first (a later version waits for the earlier). */
  chain?: string;
  rank?: bigint;
}

/** A due row as a write leaves it (at null: the row goes). */
export interface DueRow {
  app: string;
  kind: string;
  key: string;
  at: number | null;
  chain?: string;
  rank?: bigint;
}

/** One piece of due work an instance claimed: its lease is its own until released or run out. */
export interface DueClaim {
  application: string;
  key: string;
  /**
   * The claim's fencing token, new at every claim: a lease that ran out and was claimed by another
   * instance has another token, so that what the first one writes late is refused.
   */
  token: string;
  /** The version of the write that last made the row's record, where the store keeps versions (PostgreSQL). */
  version?: number;
}

/** A claim as a write names it (Store.update's `leases`). */
export interface Lease extends DueClaim {
  kind: string;
}

/** A write that records the outcome of claimed work, refused: another instance holds the work now. Nothing was written. */
export class LeaseLostError extends Error {
  constructor(readonly leases: Lease[]) {
    super(`the lease on ${leases.map((l) => `${l.kind} ${l.key}`).join(', ')} was lost: another instance took the work over`);
    this.name = 'LeaseLostError';
  }
}

/**
 * Due work in a store shared by instances: a row per due record, written in the same transaction as
 * the record (so a write and its due work commit together), claimed with a lease that only one
 * instance holds at a time. Lease times are the database's clock; due times the application's.
 */
export interface DueTable {
  /** The rules that make rows of the records a write touches. */
  rule(rule: DueRule): void;
  /** Claims up to `limit` rows of `kind` due at server time `now`, each the first of its chain. */
  claim(kind: string, owner: string, now: number, leaseMs: number, limit: number): Promise<DueClaim[]>;
  /** Extends the leases still held (same token) on these rows; resolves with those, the others are lost. */
  renew(kind: string, held: DueClaim[], leaseMs: number): Promise<DueClaim[]>;
  /** Gives a claimed row back undone (at: its new due time, when it is known); false: the lease was lost. */
  release(kind: string, claim: DueClaim, at?: number): Promise<boolean>;
  /** Removes a claimed row whose record is due no more; false: the lease was lost. */
  drop(kind: string, claim: DueClaim): Promise<boolean>;
  /** Every lease of `owner` given back (it is closing). */
  releaseAll(owner: string): Promise<void>;
  /** True for one caller per window of `everyMs` (application time) for this key, across instances. */
  window(application: string, key: string, now: number, everyMs: number): Promise<boolean>;
  /** After a commit that wrote due rows, on this instance. */
  onWritten(listener: (rows: DueRow[]) => void): void;
  /** Another instance announced due work. */
  onAnnounced(listener: () => void): void;
  /** Tells the other instances (one notification for every call within a few milliseconds). */
  announce(): void;
}
