import { mkdir, open, stat, type FileHandle } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { Low, Memory } from 'lowdb';
import { JSONFile } from 'lowdb/node';
import { ChangeSet, track } from './changes.js';
import { emptyState, emptyTenant, normalizeState, type State, type Tenant } from './schema.js';
import { readLog, StoreError } from './wal.js';

export { StoreError } from './wal.js';

export interface StoreStats {
  /** update() and reset() calls that changed state. */
  writes: number;
  /** Disk writes that acknowledged writers (log appends and compactions). */
  flushes: number;
  compactions: number;
}

export interface Store {
  /** Absolute path of the state file, or 'memory'. */
  readonly location: string;
  /** The write-ahead log beside the state file, or null for memory. */
  readonly logLocation: string | null;
  readonly stats: Readonly<StoreStats>;
  /** A tenant to read (empty when the application has no state). Do not mutate: use update(). */
  tenant(application: string): Readonly<Tenant>;
  /** Applications that have state. */
  applications(): string[];
  /**
   * Runs `fn` on the tenant (synchronously: no awaits inside) and resolves with its result once a
   * write holding the change is on disk. If `fn` throws, its changes are undone and nothing is written.
   * Only what `fn` reaches through its `tenant` argument is tracked: `tenant.orders[id].status = 'OK'`
   * is written, but mutating a record fetched earlier with tenant() is not (it would be lost by a
   * crash). Reading a key inside `fn` marks it written; iterating a whole collection marks all of it.
   */
  update<T>(application: string, fn: (tenant: Tenant) => T): Promise<T>;
  /** Drops one tenant's state, or everything; durable when it resolves. */
  reset(application?: string): Promise<void>;
  /** Called after every reset (e.g. to cancel timers of the dropped tenant); null = all. */
  onReset(listener: (application: string | null) => void): void;
  /** Resolves when everything written so far is on disk. */
  flush(): Promise<void>;
  /** Flushes, folds the log into the state file and closes it. */
  close(): Promise<void>;
}

export interface StoreOptions {
  /** Fold the log into the state file when it grows past max(this, state file size). Default 8 MB. */
  compactBytes?: number;
}

const EMPTY: Readonly<Tenant> = Object.freeze(emptyTenant());
for (const v of Object.values(EMPTY)) if (v !== null) Object.freeze(v);

/**
 * Opens the state: 'memory', or a lowdb JSON file (default `.mock-server/state.json`) plus its
 * write-ahead log `<file>.wal`. Throws a StoreError (userFacing) when either cannot be read or parsed;
 * nothing is written in that case.
 */
export async function createStore(db: string, opts: StoreOptions = {}): Promise<Store> {
  if (db === 'memory') {
    const low = new Low<State>(new Memory<State>(), emptyState());
    await low.read();
    return new LowStore(low, 'memory', null, opts);
  }
  const file = resolve(db);
  try {
    await mkdir(dirname(file), { recursive: true });
  } catch (e) {
    throw new StoreError(`Cannot create the directory of state file ${file}: ${(e as Error).message}`);
  }
  const low = new Low<State>(new JSONFile<State>(file), emptyState());
  try {
    await low.read();
  } catch (e) {
    const why = e instanceof SyntaxError ? `it is not valid JSON (${e.message})` : (e as Error).message;
    throw new StoreError(
      `State file ${file} cannot be used: ${why}. It was left untouched: fix it, move it away, or start with --db memory.`,
    );
  }
  const checked = normalizeState(low.data);
  if (typeof checked === 'string') {
    throw new StoreError(`State file ${file} is not a mock-server state file: ${checked}. It was left untouched.`);
  }
  low.data = checked;
  const logFile = `${file}.wal`;
  const replayed = await readLog(logFile, low.data, emptyTenant);
  const again = normalizeState(low.data);
  if (typeof again === 'string') throw new StoreError(`State log ${logFile} is corrupt: ${again}. It was left untouched.`);
  low.data = again;
  const store = new LowStore(low, file, logFile, opts);
  await store.openLog(replayed.lines > 0 || replayed.tornTail);
  return store;
}

interface Waiter {
  resolve(): void;
  reject(err: unknown): void;
}

class LowStore implements Store {
  readonly stats: StoreStats = { writes: 0, flushes: 0, compactions: 0 };
  #pending = new ChangeSet();
  #waiters: Waiter[] = [];
  #running: Promise<void> | null = null;
  #log: FileHandle | null = null;
  #logBytes = 0;
  #snapshotBytes = 0;
  #closed = false;
  readonly #resetListeners: Array<(app: string | null) => void> = [];
  readonly #compactBytes: number;

  constructor(
    private readonly low: Low<State>,
    readonly location: string,
    readonly logLocation: string | null,
    opts: StoreOptions,
  ) {
    this.#compactBytes = opts.compactBytes ?? 8 * 1024 * 1024;
  }

  /** Opens the log for appending; folds a replayed log into the state file first. */
  async openLog(compactFirst: boolean): Promise<void> {
    if (!this.logLocation) return;
    try {
      this.#log = await open(this.logLocation, 'a');
      this.#logBytes = (await this.#log.stat()).size;
      this.#snapshotBytes = await fileSize(this.location);
      // A missing state file is written at once, so a user sees where the state lives.
      if (compactFirst || this.#snapshotBytes === 0) await this.#compact();
    } catch (e) {
      await this.#log?.close();
      throw new StoreError(`Cannot write state file ${this.location} or its log: ${(e as Error).message}`);
    }
  }

  tenant(application: string): Readonly<Tenant> {
    return this.low.data.tenants[application] ?? EMPTY;
  }

  applications(): string[] {
    return Object.keys(this.low.data.tenants);
  }

  update<T>(application: string, fn: (tenant: Tenant) => T): Promise<T> {
    if (this.#closed) return Promise.reject(new Error('store is closed'));
    const tenants = this.low.data.tenants;
    const created = tenants[application] === undefined;
    const tenant = created ? (tenants[application] = emptyTenant()) : (tenants[application] as Tenant);
    const t = track(tenant);
    let result: T;
    try {
      result = fn(t.proxy);
      if (result instanceof Promise) throw new TypeError('store.update() takes a synchronous function');
    } catch (err) {
      t.rollback();
      if (created) delete tenants[application];
      return Promise.reject(err);
    }
    if (created) this.#pending.markTenant(application);
    else t.record(this.#pending, application);
    this.stats.writes++;
    return this.#commit().then(() => result);
  }

  reset(application?: string): Promise<void> {
    if (application === undefined) {
      this.low.data.tenants = emptyState().tenants;
      this.#pending.markAll();
    } else {
      delete this.low.data.tenants[application];
      this.#pending.markTenant(application);
    }
    this.stats.writes++;
    for (const l of this.#resetListeners) l(application ?? null);
    return this.#commit();
  }

  onReset(listener: (application: string | null) => void): void {
    this.#resetListeners.push(listener);
  }

  flush(): Promise<void> {
    return this.#running ?? Promise.resolve();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    while (this.#running) await this.#running;
    if (this.#log) {
      if (this.#logBytes > 0) await this.#compact();
      await this.#log.close();
      this.#log = null;
    }
  }

  /** Group commit: writers wait for the next flush; one flush serves everyone who wrote before it began. */
  #commit(): Promise<void> {
    if (!this.#log) {
      this.#pending = new ChangeSet();
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      this.#waiters.push({ resolve, reject });
      this.#running ??= this.#loop();
    });
  }

  async #loop(): Promise<void> {
    // Let every request handled in this turn of the event loop join the first flush.
    await new Promise((r) => setImmediate(r));
    try {
      while (this.#waiters.length > 0) {
        const waiters = this.#waiters;
        const changes = this.#pending;
        this.#waiters = [];
        this.#pending = new ChangeSet();
        try {
          await this.#flushOnce(changes);
          for (const w of waiters) w.resolve();
        } catch (err) {
          // Still in memory: the next flush writes these changes again.
          this.#pending.absorb(changes);
          for (const w of waiters) w.reject(err);
        }
      }
    } finally {
      this.#running = null;
    }
  }

  async #flushOnce(changes: ChangeSet): Promise<void> {
    const log = this.#log as FileHandle;
    if (this.#logBytes > Math.max(this.#compactBytes, this.#snapshotBytes)) {
      await this.#compact();
      return;
    }
    const ops = changes.toOps(this.low.data);
    if (ops.length === 0) return;
    const line = Buffer.from(`${JSON.stringify(ops)}\n`);
    await log.write(line);
    await log.datasync();
    this.#logBytes += line.length;
    this.stats.flushes++;
  }

  /**
   * Writes the whole state through lowdb (temp file + rename, so a crash leaves the old or the new
   * file, never half of one), makes it durable, then empties the log. A crash between the rename
   * and the truncation replays the log over a state that already holds it: every operation sets a
   * value, so applying it twice gives the same state.
   */
  async #compact(): Promise<void> {
    const log = this.#log as FileHandle;
    await this.low.write();
    const fh = await open(this.location, 'r');
    try {
      await fh.sync();
      this.#snapshotBytes = (await fh.stat()).size;
    } finally {
      await fh.close();
    }
    await log.truncate(0);
    await log.datasync();
    this.#logBytes = 0;
    this.stats.compactions++;
    this.stats.flushes++;
  }
}

async function fileSize(file: string): Promise<number> {
  try {
    return (await stat(file)).size;
  } catch {
    return 0;
  }
}
