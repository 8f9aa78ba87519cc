import { type ServerState, type Tenant } from '../schema.js';
import type { Lease, Store, StoreStats } from '../types.js';
import { TenantCache } from './cache.js';
import { Chains } from './chains.js';
import type { Db } from './db.js';
import { redactUrl } from './errors.js';
import { PostgresDue } from './due.js';
import { PgJournal } from './journal.js';
import { Notices } from './notices.js';
import { Presence } from './presence.js';
import { Rounds } from './rounds.js';
import { SQL } from './sql.js';
import { transaction } from './batch.js';
import { Writer, type Pending } from './writer.js';

/** The chain of the server state: no application is named with a NUL (header values cannot hold one). */
const SERVER = '\u0000server';
/** Rounds under way at once (rounds.ts): one taking what came while the other waits for the disk. */
const PARALLEL = 2;

/**
 * The PostgreSQL store: the database holds the state, each instance a cache of the tenants it has
 * seen (so tenant() stays synchronous). sync() brings a tenant up to the database before a request
 * reads it; update() runs under the tenant's row lock on a cache brought up to date first, and
 * resolves once committed. Both go through rounds (rounds.ts, writer.ts) that every application
 * shares: a round reads and writes whatever came while the one before was under way, in one
 * transaction. A write whose commit failed is undone in memory and answered 503.
 */
export class PostgresStore implements Store {
  readonly kind = 'postgres' as const;
  readonly location: string;
  readonly logLocation = null;
  readonly stats: StoreStats = { writes: 0, flushes: 0, compactions: 0 };
  readonly #chains = new Chains();
  readonly #cache: TenantCache;
  readonly #notices: Notices;
  readonly #presence: Presence;
  readonly #writer: Writer;
  readonly #rounds: Rounds<Pending>;
  readonly #serverListeners: Array<(s: Readonly<ServerState>) => void> = [];
  readonly #topicListeners: Array<(topics: string[]) => void> = [];
  /** Syncs queued and not started: the latest caller's time (each caller needs what was committed before it came). */
  readonly #syncs = new Map<string, { at: number; done: Promise<void> }>();
  #syncAll: Promise<void> | null = null;
  /** The request journal of every instance (journal.ts). */
  readonly journal: PgJournal;
  readonly due: PostgresDue;
  #server: ServerState;
  #serverVersion: number;
  #closed = false;

  constructor(
    private readonly db: Db,
    url: string,
    server: { doc: ServerState; version: number },
    private readonly onClose: () => Promise<void>,
    warn: (message: string) => void = (m) => process.emitWarning(m),
  ) {
    this.location = redactUrl(url);
    this.journal = new PgJournal(db, warn);
    this.#cache = new TenantCache((app) => this.#notices.tell(app));
    this.#notices = new Notices(
      db,
      this.#cache,
      this.#chains,
      (app) => void (app === null ? this.#serverAt(Infinity) : this.sync(app)).catch(() => undefined),
      (topics) => this.#topicListeners.forEach((l) => l(topics)),
    );
    this.#notices.on((app) => this.#writer.forget(app));
    this.#presence = new Presence(db, this.#notices.id);
    this.due = new PostgresDue(db, this.#notices.id);
    this.#notices.onDue((from) => this.due.heard(from));
    this.#writer = new Writer(db, this.#cache, this.due, this.#presence, this.stats, (v) => this.#serverAt(v), (app) => this.#notices.changed(app));
    this.#rounds = new Rounds((round) => this.#writer.run(round, SERVER), PARALLEL);
    this.#server = server.doc;
    this.#serverVersion = server.version;
  }

  /** Registers this instance on the database (presence.ts): before the first request. */
  start(): Promise<void> {
    return this.#presence.start();
  }

  tenant(application: string): Readonly<Tenant> {
    return this.#cache.tenant(application);
  }

  applications(): string[] {
    return this.#cache.apps();
  }

  server(): Readonly<ServerState> {
    return this.#server;
  }

  onReset(listener: (application: string | null) => void): void {
    this.#notices.on(listener);
  }

  onServerChange(listener: (server: Readonly<ServerState>) => void): void {
    this.#serverListeners.push(listener);
  }

  announce(topics: string[]): void {
    if (!this.#closed) this.#notices.announce(topics);
  }

  onAnnounce(listener: (topics: string[]) => void): void {
    this.#topicListeners.push(listener);
  }

  /** A notification from the LISTEN connection (another instance's reset). */
  heard(payload: string): void {
    if (!this.#closed) this.#notices.heard(payload);
  }

  /** After the LISTEN connection was down: finds the resets whose notifications were missed. */
  missedNotifications(): Promise<void> {
    return this.#notices.check();
  }

  /**
   * Brings `application` and the server state up to the database as it is now: nothing to ask when
   * a round under way or queued already reads it after this call (Writer.fresh), or when this
   * instance is alone on the database and its cache has read or written them since it became alone
   * (presence.ts);
   * else a read in the next round, shared with every application that needs one.
   */
  sync(application: string, holding?: number): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('store is closed'));
    if (holding !== undefined && this.#cache.holds(application, holding)) return Promise.resolve();
    const at = performance.now();
    const queued = this.#syncs.get(application);
    if (queued) {
      queued.at = at;
      return queued.done;
    }
    const s = { at, done: Promise.resolve() };
    this.#syncs.set(application, s);
    s.done = this.#chains.run(application, async () => {
      if (this.#syncs.get(application) === s) this.#syncs.delete(application);
      const alone = this.#presence.alone();
      if (!this.#writer.fresh(application, alone === null ? s.at : Math.min(s.at, alone))) await this.#rounds.check(application);
    });
    return s.done;
  }

  /** sync() of every application that changed, and of the server state: one read of every version, shared by the calls that come before it starts. */
  syncAll(): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('store is closed'));
    this.#syncAll ??= (async () => {
      await Promise.resolve();
      this.#syncAll = null;
      const { rows } = await this.db.query(SQL.allVersions, []);
      const live = new Map(rows.map((r) => [r.app as string, r]));
      const changed = [...new Set([...live.keys(), ...this.#cache.apps()])].filter((app) => {
        const c = this.#cache.get(app);
        const r = live.get(app);
        return !c || !r || c.stale || c.version !== Number(r.version) || c.born !== Number(r.born);
      });
      // The server state comes with any application's read; alone when none changed.
      await Promise.all(changed.length > 0 ? changed.map((app) => this.sync(app)) : [this.#rounds.check(SERVER)]);
    })();
    return this.#syncAll;
  }

  update<T>(application: string, fn: (tenant: Tenant) => T, leases?: Lease[]): Promise<T> {
    if (this.#closed) return Promise.reject(new Error('store is closed'));
    return new Promise<T>((resolve, reject) => {
      const item: Pending = { fn, resolve: resolve as (v: unknown) => void, reject, leases };
      this.#chains.batch(application, item, (items, close) => this.#rounds.write(application, items, close));
    });
  }

  updateServer(fn: (server: ServerState) => void): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('store is closed'));
    return this.#chains.run(SERVER, async () => {
      await this.#presence.ready;
      const client = await this.db.connect();
      const tx = transaction(client, this.db);
      try {
        await tx.sql(`BEGIN; ${this.#presence.fence}`);
        const [locked] = await tx.sql(SQL.lockServer);
        const { doc, next } = locked?.rows[0] as { doc: ServerState; next: string };
        const changed = { ...doc };
        let text: string;
        try {
          fn(changed);
          text = JSON.stringify(changed);
        } catch (err) {
          await tx.sql('ROLLBACK').catch(() => undefined);
          throw err;
        }
        const what = 'did not take the change, so it was not acknowledged';
        await tx.sql(SQL.writeServer, [text, next], what);
        await tx.sql('COMMIT', [], what);
        this.stats.writes++;
        this.stats.flushes++;
        if (Number(next) > this.#serverVersion) {
          this.#server = changed;
          this.#serverVersion = Number(next);
        }
        this.#notices.changed(null);
      } finally {
        client.release(tx.broken || undefined);
      }
    });
  }

  async reset(application?: string): Promise<void> {
    if (this.#closed) throw new Error('store is closed');
    await (application === undefined ? this.#notices.resetAll(this.#presence) : this.#notices.reset(application, this.#presence));
    this.stats.writes++;
  }

  ping(): Promise<void> {
    return this.db.ping();
  }

  flush(): Promise<void> {
    return this.#chains.idle();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.flush();
    await this.journal.flush();
    await this.#presence.close();
    await this.onClose();
  }

  /** Takes the server state when the database has a newer one (written by another instance), and tells. Infinity: look. */
  async #serverAt(version: number): Promise<void> {
    if (version <= this.#serverVersion || this.#closed) return;
    const r = (await this.db.query(SQL.server, [])).rows[0];
    if (!r || Number(r.version) <= this.#serverVersion) return;
    this.#server = r.doc;
    this.#serverVersion = Number(r.version);
    for (const l of this.#serverListeners) l(this.#server);
  }
}
