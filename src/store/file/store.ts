import { existsSync } from 'node:fs';
import { open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Low, Memory } from 'lowdb';
import { track, type Op } from '../changes.js';
import { VERSION } from '../../version.js';
import { emptyState, emptyTenant, newerWriter, normalizeState, STATE_VERSION, type ServerState, type State, type Tenant } from '../schema.js';
import type { Store, StoreOptions, StoreStats } from '../types.js';
import { checkFiles, makeDirectory, resolveStateFile } from './checks.js';
import { lockStateFile, type StateLock } from './lock.js';
import { StateFile, syncDirectory, writeAll } from './state-file.js';
import { readLog } from './wal.js';
import { StoreError } from '../types.js';

const EMPTY: Readonly<Tenant> = Object.freeze(emptyTenant());
for (const v of Object.values(EMPTY)) if (v !== null) Object.freeze(v);

/**
 * Opens the state: 'memory', or a lowdb JSON file (default `.mock-server/state.json`) plus its
 * write-ahead log `<file>.wal` (and `<file>.wal.old` while a compaction runs). Throws a StoreError
 * (userFacing) when they cannot be read, parsed or written; nothing is written in that case.
 */
export async function createStore(db: string, opts: StoreOptions = {}): Promise<Store> {
  if (db === 'memory') {
    const low = new Low<State>(new Memory<State>(), emptyState());
    return new LowStore(low, 'memory', null, opts);
  }
  const file = await resolveStateFile(db);
  const exists = await checkFiles(file);
  const lock = await lockStateFile(file, exists ? await stat(file) : null, opts.warn ?? warning);
  try {
    return await openFile(file, exists, { ...opts, lock });
  } catch (e) {
    await lock.release();
    throw e;
  }
}

const warning = (message: string) => process.emitWarning(message);

async function openFile(file: string, exists: boolean, opts: StoreOptions & { lock: StateLock }): Promise<Store> {
  const adapter = new StateFile(file, (st) => opts.lock.follow(st));
  let raw: unknown = emptyState();
  if (exists) {
    try {
      raw = await adapter.read();
    } catch (e) {
      const why = e instanceof SyntaxError ? `it is not valid JSON (${e.message})` : (e as Error).message;
      throw new StoreError(`State file ${file} cannot be used: ${why}. ${await untouched(adapter)}`);
    }
  }
  const newer = newerWriter(raw);
  if (newer) {
    throw new StoreError(`State file ${file} was written by a newer mock-server (${newer}; this is mock-server ${VERSION}, which reads state version ${STATE_VERSION}). It was left untouched: start it with the mock-server that wrote it, or use another --db.`);
  }
  const checked = normalizeState(raw);
  if (typeof checked === 'string') {
    throw new StoreError(`State file ${file} is not a mock-server state file: ${checked}. ${await untouched(adapter)}`);
  }
  checked.mock_server = VERSION;
  const low = new Low<State>(adapter, checked);
  const logFile = `${file}.wal`;
  let replayed = false;
  for (const log of [`${logFile}.old`, logFile]) {
    const r = await readLog(log, low.data, emptyTenant);
    replayed ||= r.lines > 0 || r.tornTail;
  }
  const again = normalizeState(low.data);
  if (typeof again === 'string') throw new StoreError(`State log ${logFile} is corrupt: ${again}. It was left untouched.`);
  low.data = again;
  const store = new LowStore(low, file, logFile, opts);
  await store.open(replayed || !exists);
  return store;
}

/** What the refusal of a bad state file tells the person who has to fix it. */
async function untouched(adapter: StateFile): Promise<string> {
  const backup = existsSync(adapter.backup) ? ` The last good state is ${adapter.backup}: copy it over the state file to restore it.` : '';
  return `It was left untouched: fix it, move it away, or start with --db memory.${backup}`;
}

interface Waiter {
  resolve(): void;
  reject(err: unknown): void;
}

class LowStore implements Store {
  readonly stats: StoreStats = { writes: 0, flushes: 0, compactions: 0 };
  /** Serialized operations of updates not yet on disk, each a JSON array. */
  #pending: string[] = [];
  #waiters: Waiter[] = [];
  #running: Promise<void> | null = null;
  #log: FileHandle | null = null;
  #logBytes = 0;
  /** `<log>.old` exists: the log of a compaction that has not finished. */
  #oldLog = false;
  /** A background compaction. */
  #compacting: Promise<void> | null = null;
  /** An append failed or the log was removed: the next flush writes the whole state afresh. */
  #broken: Error | null = null;
  #closed = false;
  readonly #resetListeners: Array<(app: string | null) => void> = [];
  readonly #compactBytes: number | undefined;
  readonly #warn: (message: string) => void;
  readonly #lock: StateLock | undefined;
  /** Looks for a log removed while no one writes (see #checkLog). */
  #watch: NodeJS.Timeout | null = null;

  constructor(
    private readonly low: Low<State>,
    readonly location: string,
    readonly logLocation: string | null,
    opts: StoreOptions & { lock?: StateLock },
  ) {
    this.#compactBytes = opts.compactBytes;
    this.#warn = opts.warn ?? warning;
    this.#lock = opts.lock;
  }

  get #file(): StateFile {
    return this.low.adapter as StateFile;
  }

  /** Opens the log for appending; folds a replayed log into the state file first. */
  async open(compactFirst: boolean): Promise<void> {
    const logFile = this.logLocation as string;
    try {
      this.#oldLog = existsSync(`${logFile}.old`);
      if (compactFirst || this.#oldLog) await this.#rewrite();
      else this.#file.bytes = (await stat(this.location)).size;
      if (!this.#log) {
        this.#log = await open(logFile, 'a');
        this.#logBytes = (await this.#log.stat()).size;
      }
      this.#watch = setInterval(() => void this.#checkLog(), 1000).unref();
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

  server(): Readonly<ServerState> {
    return this.low.data.server;
  }

  update<T>(application: string, fn: (tenant: Tenant) => T): Promise<T> {
    if (this.#closed) return Promise.reject(new Error('store is closed'));
    const tenants = this.low.data.tenants;
    const created = tenants[application] === undefined;
    const tenant = created ? (tenants[application] = emptyTenant()) : (tenants[application] as Tenant);
    const t = track(tenant);
    let result: T;
    let line: string;
    try {
      result = fn(t.proxy);
      if (result instanceof Promise) throw new TypeError('store.update() takes a synchronous function');
      // Serialized now, not at the flush: a value that cannot be written (too deep, circular) fails
      // this update alone, instead of every flush after it.
      line = serialize(created ? [['t', application, tenant]] : t.ops(application));
    } catch (err) {
      t.rollback();
      if (created) delete tenants[application];
      return Promise.reject(err);
    }
    this.stats.writes++;
    return this.#commit(line).then(() => result);
  }

  updateServer(fn: (server: ServerState) => void): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('store is closed'));
    const next = { ...this.low.data.server };
    let line: string;
    try {
      fn(next);
      line = serialize([['s', next]]);
    } catch (err) {
      return Promise.reject(err);
    }
    this.low.data.server = next;
    this.stats.writes++;
    return this.#commit(line);
  }

  reset(application?: string): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('store is closed'));
    if (application === undefined) this.low.data.tenants = emptyState().tenants;
    else delete this.low.data.tenants[application];
    this.stats.writes++;
    for (const l of this.#resetListeners) l(application ?? null);
    return this.#commit(serialize(application === undefined ? [['ra']] : [['t', application, null]]));
  }

  onReset(listener: (application: string | null) => void): void {
    this.#resetListeners.push(listener);
  }

  async flush(): Promise<void> {
    while (this.#running || this.#compacting) await Promise.all([this.#running?.catch(() => undefined), this.#compacting]);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#watch) clearInterval(this.#watch);
    while (this.#running) await this.#running.catch(() => undefined);
    await this.#compacting;
    if (!this.#log) return;
    try {
      if (this.#logBytes > 0 || this.#oldLog || this.#broken || this.#pending.length > 0) await this.#rewrite();
    } finally {
      await this.#log.close();
      this.#log = null;
      await this.#lock?.release().catch((e: Error) => this.#warn(`Could not release the lock on state file ${this.location}: ${e.message}`));
    }
  }

  /** Group commit: writers wait for the next flush; one flush serves everyone who wrote before it began. */
  #commit(line: string): Promise<void> {
    if (!this.logLocation) return Promise.resolve();
    this.#pending.push(line);
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
        const lines = this.#pending;
        this.#waiters = [];
        this.#pending = [];
        try {
          await this.#append(lines);
          for (const w of waiters) w.resolve();
        } catch (err) {
          // Still in memory, in order: the next flush writes them again, or a rewrite holds them.
          this.#pending = lines.concat(this.#pending);
          const e = new StoreWriteError(this.location, err as Error);
          for (const w of waiters) w.reject(e);
        }
      }
    } finally {
      this.#running = null;
    }
  }

  /**
   * One log line holding every pending update, made durable; or the whole state when the log cannot
   * be trusted. A log that was deleted (its directory removed, say) takes writes that no restart
   * will read: it is looked at after the write is durable, so that no write acknowledged into a log
   * already gone is lost to a crash before the next write would have noticed.
   */
  async #append(lines: string[]): Promise<void> {
    const log = this.#log as FileHandle;
    const body = lines.map((l) => l.slice(1, -1)).filter((l) => l !== '').join(',');
    if (!this.#broken && body !== '') {
      const line = Buffer.from(`[${body}]\n`);
      try {
        await writeAll(log, line);
        await log.datasync();
      } catch (e) {
        // Part of the line may be on disk: a line appended after it would read as corrupt.
        this.#broken = e as Error;
        throw e;
      }
      this.#logBytes += line.length;
    }
    if (!this.#broken && (await log.stat()).nlink === 0) this.#broken = new Error(`the log ${this.logLocation} was removed`);
    if (this.#broken) {
      await this.#recover();
      return;
    }
    if (body === '') return;
    this.stats.flushes++;
    if (!this.#compacting && this.#logBytes > (this.#compactBytes ?? Math.max(8 * 1024 * 1024, this.#file.bytes))) await this.#startCompaction();
  }

  /**
   * Folds the log into the state file without stopping writes: the log is renamed `<log>.old` and a
   * fresh one takes every write from now on, while the state is written in slices beside them. A
   * start replays `<log>.old` then `<log>` over the state file, whichever of the steps a crash cut.
   */
  async #startCompaction(): Promise<void> {
    const logFile = this.logLocation as string;
    if (!this.#oldLog) {
      await rename(logFile, `${logFile}.old`);
      this.#oldLog = true;
      const fresh = await open(logFile, 'a');
      const old = this.#log as FileHandle;
      this.#log = fresh;
      this.#logBytes = 0;
      await old.close();
      await syncDirectory(logFile);
    }
    // Without a rotation (an earlier compaction failed), the log holds changes from before this
    // compaction too: replaying them over the new state file is harmless, every operation sets a value.
    this.#compacting = this.low
      .write()
      .then(() => this.#dropOldLog())
      .catch((e: Error) => this.#warn(`Compaction of state file ${this.location} failed, the log keeps every change: ${e.message}`))
      .finally(() => (this.#compacting = null));
  }

  async #dropOldLog(): Promise<void> {
    await rm(`${this.logLocation}.old`, { force: true });
    this.#oldLog = false;
    this.stats.compactions++;
    this.stats.flushes++;
  }

  /**
   * Writes the whole state (everything in memory, pending updates included) and starts an empty log.
   * At start, at close, and to recover a log that failed or was removed (the directory is created again).
   */
  async #rewrite(): Promise<void> {
    await this.#compacting;
    await makeDirectory(dirname(this.location), this.location);
    await this.low.write();
    const logFile = this.logLocation as string;
    // Appending: every write lands at the end, wherever another handle left the file.
    const fresh = await open(logFile, 'a');
    await fresh.truncate(0);
    await fresh.datasync();
    await this.#log?.close().catch(() => undefined);
    this.#log = fresh;
    this.#logBytes = 0;
    await this.#dropOldLog();
    await syncDirectory(logFile);
  }

  /** A log removed while no one writes: without a write to notice it, a crash would lose everything since the last compaction. */
  async #checkLog(): Promise<void> {
    if (this.#running || this.#closed || !this.#log || (await this.#log.stat().catch(() => null))?.nlink !== 0) return;
    await this.#commit('[]').catch((e: Error) => this.#warn(e.message));
  }

  /**
   * Writes the state afresh after a failed write or a removed log. Updates queued meanwhile stay
   * pending: the rewrite may have written their records before they changed, so only the fresh log
   * holds them (dropping them here lost acknowledged writes to a kill -9 after a recovery).
   */
  async #recover(): Promise<void> {
    const why = (this.#broken as Error).message;
    await this.#rewrite();
    await this.#lock?.restore();
    this.#broken = null;
    this.#warn(`State file ${this.location} was written afresh after a write problem (${why}); nothing was lost`);
  }
}

/** A write that could not reach the disk: answered 503, never acknowledged. */
export class StoreWriteError extends Error {
  readonly statusCode = 503;
  constructor(file: string, cause: Error) {
    super(`The change could not be saved to the state file ${file} (${cause.message}), so it was not acknowledged: try again`);
    this.name = 'StoreWriteError';
  }
}

function serialize(ops: Op[]): string {
  return JSON.stringify(ops);
}
