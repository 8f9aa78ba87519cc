import type pg from 'pg';
import { track } from '../changes.js';
import { emptyTenant, type ServerState, type Tenant } from '../schema.js';
import { LeaseLostError, type Lease, type Store, type StoreStats } from '../types.js';
import { TenantCache, versionsOf } from './cache.js';
import { Chains } from './chains.js';
import type { Db } from './db.js';
import { redactUrl } from './errors.js';
import { DUE_SQL, PostgresDue } from './due.js';
import { PgJournal } from './journal.js';
import { Notices } from './notices.js';
import { mergeOps, toWrites } from './rows.js';
import type { Op } from '../changes.js';
import { SQL } from './sql.js';

/** An update waiting for its application's next transaction. */
interface Pending {
  fn: (tenant: Tenant) => unknown;
  resolve(value: unknown): void;
  reject(err: unknown): void;
  /** Claims whose outcome it records: it runs only while they are held (see Store.update). */
  leases?: Lease[];
}

/** Every this many writes of one application by this instance, tombstones older than the last prune go. */
const PRUNE_EVERY = 200;
/** The chain of the server state: no application is named with a NUL (header values cannot hold one). */
const SERVER = '\u0000server';

/**
 * The PostgreSQL store: the database holds the state, each instance a cache of the tenants it has
 * seen (so tenant() stays synchronous). sync() brings a tenant up to the database before a request
 * reads it; update() runs under the tenant's row lock on a cache brought up to date first, and
 * resolves once committed. A write whose commit failed is undone in memory and answered 503.
 */
export class PostgresStore implements Store {
  readonly kind = 'postgres' as const;
  readonly location: string;
  readonly logLocation = null;
  readonly stats: StoreStats = { writes: 0, flushes: 0, compactions: 0 };
  readonly #chains = new Chains();
  readonly #cache: TenantCache;
  readonly #notices: Notices;
  readonly #serverListeners: Array<(s: Readonly<ServerState>) => void> = [];
  readonly #topicListeners: Array<(topics: string[]) => void> = [];
  /** The request journal of every instance (journal.ts). */
  readonly journal: PgJournal;
  readonly #writesSincePrune = new Map<string, number>();
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
    this.#cache = new TenantCache(db, (app) => this.#notices.tell(app));
    this.#notices = new Notices(
      db,
      this.#cache,
      this.#chains,
      (app) => void (app === null ? this.#serverAt(Infinity) : this.sync(app)).catch(() => undefined),
      (topics) => this.#topicListeners.forEach((l) => l(topics)),
    );
    this.due = new PostgresDue(db, this.#notices.id);
    this.#notices.onDue((from) => this.due.heard(from));
    this.#server = server.doc;
    this.#serverVersion = server.version;
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

  sync(application: string): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('store is closed'));
    return this.#chains.sync(application, async () => {
      const r = (await this.db.query(SQL.versions, [application])).rows[0];
      await this.#serverAt(Number(r.server_version));
      await this.#cache.bringUp(application, r.version === null ? null : versionsOf(r));
    });
  }

  async syncAll(): Promise<void> {
    if (this.#closed) throw new Error('store is closed');
    const [{ rows }, server] = await Promise.all([this.db.query(SQL.allVersions, []), this.db.query(SQL.serverVersion, [])]);
    await this.#serverAt(Number(server.rows[0]?.version ?? 0));
    const live = new Map(rows.map((r) => [r.app as string, versionsOf(r)]));
    const apps = new Set([...live.keys(), ...this.#cache.apps()]);
    await Promise.all([...apps].map((app) => this.#chains.run(app, () => this.#cache.bringUp(app, live.get(app) ?? null))));
  }

  update<T>(application: string, fn: (tenant: Tenant) => T, leases?: Lease[]): Promise<T> {
    if (this.#closed) return Promise.reject(new Error('store is closed'));
    return new Promise<T>((resolve, reject) => {
      const item: Pending = { fn, resolve: resolve as (v: unknown) => void, reject, leases };
      this.#chains.batch(application, item, (items) => this.#write(application, items));
    });
  }

  /**
   * Runs queued updates of one application in one transaction (group commit): under its row lock, on
   * the cache brought up to date, each function in turn (one that throws is undone alone), then one
   * write of everything they touched and one commit. Each resolves once that commit is done. An
   * update with leases runs only if they are all still held; they are given back in the transaction.
   */
  async #write(app: string, items: Pending[]): Promise<void> {
    let client: pg.PoolClient;
    try {
      client = await this.db.connect();
    } catch (e) {
      for (const i of items) i.reject(e);
      return;
    }
    const tx = transaction(client, this.db);
    const ran: Array<{ item: Pending; t: ReturnType<typeof track>; result: unknown; ops: Op[] }> = [];
    try {
      const [, inserted, locked] = (await tx.sql(SQL.lock(this.db.literal(app)))) as unknown as pg.QueryResult[];
      const created = inserted?.rowCount === 1;
      const row = locked?.rows[0];
      const next = Number(row.next);
      if (!created) await this.#cache.bringUp(app, versionsOf(row), client).catch((e: unknown) => ((tx.broken = true), Promise.reject(e)));
      else if (this.#cache.get(app)) this.#cache.dropped(app); // its row was gone: reset by another instance
      const cached = this.#cache.get(app) ?? { tenant: emptyTenant(), version: 0, born: Number(row.born), stale: false };
      this.#cache.set(app, cached);
      const held = await this.#giveBack(app, items, tx);
      for (const item of items) {
        if (item.leases?.some((l) => !held.has(leaseKey(l)))) {
          item.reject(new LeaseLostError(item.leases));
          continue;
        }
        const t = track(cached.tenant);
        try {
          const result = item.fn(t.proxy);
          if (result instanceof Promise) throw new TypeError('store.update() takes a synchronous function');
          const ops = t.ops(app);
          // Serialized now: a value that cannot be written (circular, say) fails this update alone.
          toWrites(ops);
          ran.push({ item, t, result, ops });
        } catch (err) {
          t.rollback();
          item.reject(err);
        }
      }
      const merged = mergeOps(app, cached.tenant, ran.map((r) => r.ops));
      const writes = toWrites(merged);
      const due = this.due.rowsOf(app, merged);
      if (writes.keys.length === 0 && (!created || ran.length === 0)) {
        if (created) this.#cache.delete(app);
        // Nothing written, but leases given back: that is committed.
        if (held.size > 0) await tx.sql('COMMIT', [], 'did not take the change, so it was not acknowledged');
        else await tx.sql('ROLLBACK').catch(() => undefined);
        for (const r of ran) r.item.resolve(r.result);
        return;
      }
      try {
        const what = 'did not take the change, so it was not acknowledged';
        if (due.cleared.length > 0) await tx.sql(DUE_SQL.clear, [app, due.cleared], what);
        const params = [app, next, writes.replaced, writes.fields, writes.keys, writes.values];
        if (due.rows.length > 0) await tx.sql(SQL.writeDue, [...params, ...this.due.params(due.rows)], what);
        else await tx.sql(SQL.write, params, what);
        if (this.#pruneDue(app, ran.length)) await tx.sql(SQL.prune, [app, next], what);
        await tx.sql('COMMIT', [], what);
      } catch (e) {
        // Committed or not, nobody knows (a connection lost on COMMIT): the next sync reloads the tenant.
        for (const r of [...ran].reverse()) r.t.rollback();
        if (created) this.#cache.delete(app);
        else cached.stale = true;
        throw e;
      }
      cached.version = next;
      this.stats.writes += ran.filter((r) => r.ops.length > 0).length;
      this.stats.flushes++;
      if (writes.fields.includes('')) this.#notices.changed(app);
      for (const r of ran) r.item.resolve(r.result);
      if (due.rows.length > 0) this.due.committed(due.rows);
    } catch (e) {
      // Those whose function threw are settled already: a second reject does nothing.
      for (const i of items) i.reject(e);
    } finally {
      client.release(tx.broken || undefined);
    }
  }

  updateServer(fn: (server: ServerState) => void): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('store is closed'));
    return this.#chains.run(SERVER, async () => {
      const client = await this.db.connect();
      const tx = transaction(client, this.db);
      try {
        await tx.sql('BEGIN');
        const { doc, next } = (await tx.sql(SQL.lockServer)).rows[0] as { doc: ServerState; next: string };
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
    await (application === undefined ? this.#notices.resetAll() : this.#notices.reset(application));
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

  /** The leases of `items` still held, given back in the write's transaction (keyed by leaseKey). */
  async #giveBack(app: string, items: Pending[], tx: ReturnType<typeof transaction>): Promise<Set<string>> {
    const leases = items.flatMap((i) => i.leases ?? []);
    if (leases.length === 0) return new Set();
    const { rows } = await tx.sql(DUE_SQL.giveBack, [app, ...this.due.leaseParams(leases)]);
    return new Set(rows.map((r) => leaseKey(r)));
  }

  #pruneDue(app: string, writes: number): boolean {
    const n = (this.#writesSincePrune.get(app) ?? 0) + writes;
    this.#writesSincePrune.set(app, n % PRUNE_EVERY);
    return n >= PRUNE_EVERY;
  }
}

const leaseKey = (l: { kind: string; key: string }) => `${l.kind}\u0000${l.key}`;

/**
 * Statements on a transaction's connection. A failure answers 503 and marks the connection broken:
 * its transaction state is unknown, so it is dropped rather than given back to the pool.
 */
function transaction(client: pg.PoolClient, db: Db) {
  const tx = {
    broken: false,
    sql: async (text: string, params: unknown[] = [], what = 'did not answer') => {
      try {
        return await client.query(text, params);
      } catch (e) {
        tx.broken = true;
        throw db.failed(e, what);
      }
    },
  };
  return tx;
}
