import type pg from 'pg';
import { track, type Op } from '../changes.js';
import type { Tenant } from '../schema.js';
import { LeaseLostError, type Lease, type StoreStats } from '../types.js';
import { Batch, transaction } from './batch.js';
import { remember, trim, type Cached, type Digest, type SinceRow, type TenantCache } from './cache.js';
import type { Db } from './db.js';
import type { PostgresDue } from './due.js';
import type { Presence } from './presence.js';
import type { Entry, Round } from './rounds.js';
import { mergeOps, toWrites } from './rows.js';
import { arrayOf, ROUND_STATEMENTS, SQL, WRITE_TYPES } from './sql.js';

/** An update waiting for its application's next round. */
export interface Pending {
  fn: (tenant: Tenant) => unknown;
  resolve(value: unknown): void;
  reject(err: unknown): void;
  /** Claims whose outcome it records: it runs only while they are held (see Store.update). */
  leases?: Lease[];
}

interface Ran {
  app: string;
  item: Pending;
  t: ReturnType<typeof track>;
  result: unknown;
  ops: Op[];
}

/** Every this many writes of one application by this instance, tombstones older than the last prune go. */
const PRUNE_EVERY = 200;
/** An application a quick round found newer (another instance writes it too) is locked and read first by this many of its next rounds. */
const LOCKED_AFTER_MISS = 10;
const WHAT = 'did not take the change, so it was not acknowledged';

/**
 * Runs the rounds of rounds.ts against the database, and knows how recent each cached application
 * is: a request needs no read of its own when a round that started after it came read its
 * application, or, for one it wrote, sent its commit after that (the application was locked from
 * before its read until then: nobody else wrote it meanwhile). The server state likewise.
 */
export class Writer {
  /** performance.now() since which each application's cache holds every committed write. */
  readonly #fresh = new Map<string, number>();
  #serverFresh = -1;
  readonly #sincePrune = new Map<string, number>();
  /** Rounds left that lock and read each application first, since a quick round found it newer. */
  readonly #locked = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly cache: TenantCache,
    private readonly due: PostgresDue,
    private readonly presence: Presence,
    private readonly stats: StoreStats,
    /** The server state's version as a round read it (the store fetches a newer one). */
    private readonly serverAt: (version: number) => Promise<void>,
    /** An application's settings (a tenant field replaced whole) were written. */
    private readonly settingsChanged: (app: string) => void,
  ) {}

  /** Whether `app`'s cache and the server state hold every write committed before `at` (performance.now()). */
  fresh(app: string, at: number): boolean {
    return this.#serverFresh > at && (this.#fresh.get(app) ?? -1) > at && this.cache.get(app)?.stale !== true;
  }

  /** Forgets what it knew of `app` (a reset). */
  forget(app: string | null): void {
    if (app === null) this.#fresh.clear();
    else this.#fresh.delete(app);
  }

  /**
   * A round: one statement when it only reads, else one transaction for every application it writes.
   * The reads that shared a round whose writes failed (refused, fenced, a lost connection) are asked
   * again on their own: the failure was the writes', not theirs.
   */
  async run(round: Round<Pending>, skip: string): Promise<void> {
    if (round.writes.size === 0) return this.#read(round, skip);
    try {
      await this.#write(round, skip, this.#quick(round));
    } catch (e) {
      if (round.checks.size === 0) throw e;
      for (const entry of round.writes.values()) entry.reject(e);
      await this.#read({ writes: new Map(), checks: round.checks, sentAt: 0 }, skip);
    }
  }

  /** A round that only reads: one statement. */
  async #read(round: Round<Pending>, skip: string): Promise<void> {
    const apps = [...round.checks.keys()].filter((app) => app !== skip);
    const at = apps.map((app) => this.cache.position(app));
    round.sentAt = performance.now();
    const { rows } = await this.db.query(SQL.check, [apps, at.map((p) => p.v), at.map((p) => p.b)]);
    await this.#take(round, apps, rows);
  }

  /**
   * Whether a round writes in one round trip, its updates run on the cached tenants before anything is
   * locked: every application it writes is cached whole, none gives back claimed work (the leases are
   * checked under the lock, before the update runs), and none was found newer lately.
   */
  #quick(round: Round<Pending>): boolean {
    for (const [app, entry] of round.writes) {
      const c = this.cache.get(app);
      if (!c || c.stale || this.#locked.has(app) || entry.items?.some((i) => i.leases)) return false;
    }
    return true;
  }

  /** What since() read in a round: the server state's version and each application's rows. */
  async #take(round: Round<Pending>, apps: string[], rows: SinceRow[]): Promise<void> {
    const byApp = new Map<string, SinceRow[]>();
    for (const r of rows) {
      if (r.app === null) continue;
      let list = byApp.get(r.app);
      if (!list) byApp.set(r.app, (list = []));
      list.push(r);
    }
    await this.serverAt(Number(rows[0]?.tv ?? 0));
    this.#serverFresh = Math.max(this.#serverFresh, round.sentAt);
    for (const app of apps) {
      this.cache.apply(app, byApp.get(app));
      this.#fresh.set(app, round.sentAt);
    }
    for (const e of round.checks.values()) e.resolve();
  }

  /**
   * The applications' queued updates in one transaction (group commit across applications). Unless
   * `quick`: in one round trip, their rows locked and brought up to date, the applications only read
   * brought up to date, and the leases of their updates given back. Then each function in turn on its
   * tenant (one that throws is undone alone). Then one statement writing everything they touched, each
   * application only if it is still at the version its tenant was (sql.ts), and the commit; `quick`,
   * with the reads of the applications only read, in the same round trip and transaction. Each update
   * resolves once that commit is done. An application found newer (quick only: another instance wrote
   * it) is undone and written again in a round of the first kind. An update whose leases are not all
   * held any more does not run (LeaseLostError).
   */
  async #write(round: Round<Pending>, skip: string, quick: boolean): Promise<void> {
    const items = [...round.writes.values()].flatMap((e) => e.items ?? []);
    let client: pg.PoolClient;
    try {
      await this.presence.ready;
      client = await this.db.connect();
    } catch (e) {
      for (const i of items) i.reject(e);
      throw e;
    }
    const tx = transaction(client, this.db);
    const apps = [...round.writes.keys()].sort();
    const checks = [...round.checks.keys()].filter((app) => app !== skip);
    const ran: Ran[] = [];
    let again: Round<Pending> | null = null;
    try {
      await this.db.prepare(client, ROUND_STATEMENTS).catch((e: unknown) => {
        tx.broken = true;
        throw e;
      });
      let created = new Set<string>();
      let locked: Set<string> | null = null;
      let held = new Set<string>();
      if (!quick) {
        for (const app of apps) {
          const left = this.#locked.get(app) ?? 0;
          if (left > 1) this.#locked.set(app, left - 1);
          else this.#locked.delete(app);
        }
        const read = [...apps, ...checks];
        const results = await tx.sql(this.#start(round, apps, read));
        created = new Set((results[1]?.rows ?? []).map((r) => r.app as string));
        locked = new Set((results[2]?.rows ?? []).map((r) => r.app as string));
        await this.#take(round, read, (results[3]?.rows ?? []) as SinceRow[]);
        held = new Set((results[4]?.rows ?? []).map((r) => leaseKey(r.app, r)));
      }
      const w = new Batch();
      const trimmed = new Map<string, Digest[]>();
      for (const app of apps) {
        const cached = this.cache.get(app);
        const list = round.writes.get(app)?.items ?? [];
        // Reset by another instance between the two statements that take its row: not written, try again.
        if ((locked && !locked.has(app)) || !cached) {
          for (const i of list) i.reject(this.db.failed(new Error('the application was reset meanwhile'), WHAT));
          continue;
        }
        const mine = this.#apply(app, cached, list, held);
        ran.push(...mine);
        const merged = mergeOps(app, cached.tenant, mine.map((r) => r.ops));
        const { ops, writes, digests } = trim(cached, merged, toWrites(merged));
        trimmed.set(app, digests);
        w.add(app, cached.version, cached.born, writes, this.due.rowsOf(app, ops));
      }
      // A row this round created for an application that wrote nothing goes again.
      const empty = [...created].filter((app) => !w.apps.includes(app));
      for (const app of empty) this.cache.delete(app);
      if (w.apps.length === 0 && held.size === 0 && (!quick || round.checks.size === 0)) {
        if (!quick) await tx.sql('ROLLBACK').catch(() => undefined);
        for (const r of ran) r.item.resolve(r.result);
        return;
      }
      let commitAt: number;
      let written: pg.QueryResult;
      try {
        const params = [...w.params(), ...this.due.params(w.due), w.clearedApps, w.clearedKinds, empty] as Array<Array<string | number | null>>;
        const lit = (x: string) => this.db.literal(x);
        const statement = w.plain && empty.length === 0 ? 'mock_write_rows' : 'mock_write';
        const write = `EXECUTE ${statement}(${params.map((p, i) => arrayOf(p, WRITE_TYPES[i]!, lit)).join(', ')})`;
        const sql = [...(quick && round.checks.size > 0 ? [this.#since(checks)] : []), this.presence.fence, write];
        commitAt = performance.now();
        if (quick) round.sentAt = commitAt;
        // The server state's version comes from inside the transaction, read after this round trip went out.
        const results = await tx.sql(quick ? sql.join(';\n') : `${write}; COMMIT`, [], WHAT);
        if (quick && round.checks.size > 0) await this.#take(round, checks, (results[0]?.rows ?? []) as SinceRow[]);
        written = results[quick ? results.length - 1 : 0] as pg.QueryResult;
      } catch (e) {
        // Committed or not, nobody knows (a connection lost on COMMIT): the next sync reloads those tenants.
        for (const r of [...ran].reverse()) r.t.rollback();
        for (const app of apps) {
          this.#fresh.delete(app);
          const c = this.cache.get(app);
          if (created.has(app)) this.cache.delete(app);
          else if (c) c.stale = true;
        }
        throw e;
      }
      const versions = new Map(written.rows.map((r) => [r.app as string | null, Number(r.version)]));
      // Committed: a newer server state that cannot be fetched now is left to the next round.
      if (await this.serverAt(versions.get(null) ?? 0).then(() => true, () => false)) this.#serverFresh = Math.max(this.#serverFresh, commitAt);
      const done = ran.filter((r) => versions.has(r.app) || !w.apps.includes(r.app));
      const newer = w.apps.filter((app) => !versions.has(app));
      for (const app of w.apps) {
        const version = versions.get(app);
        if (version === undefined) continue;
        const c = this.cache.get(app) as Cached;
        c.version = version;
        remember(c, trimmed.get(app) ?? []);
        this.#fresh.set(app, commitAt);
        if (w.settings.includes(app)) this.settingsChanged(app);
      }
      this.stats.writes += done.filter((r) => r.ops.length > 0).length;
      this.stats.flushes++;
      for (const r of done) r.item.resolve(r.result);
      const due = w.due.filter((d) => versions.has(d.app));
      if (due.length > 0) this.due.committed(due);
      for (const app of w.apps) if (versions.has(app)) this.#prune(app, done.filter((r) => r.app === app).length);
      if (newer.length > 0) again = this.#again(newer, ran, quick);
    } catch (e) {
      // Those settled already (a function that threw, a lease lost) take no second settlement.
      for (const i of items) i.reject(e);
      throw e;
    } finally {
      client.release(tx.broken || undefined);
    }
    if (again) await this.#write(again, skip, false);
  }

  /**
   * The applications a quick round found newer: their updates undone, to run again in a round that
   * locks and reads them first. A round that had locked them cannot find them newer (a reset between
   * its two round trips is told apart before): that is a failure.
   */
  #again(apps: string[], ran: Ran[], quick: boolean): Round<Pending> {
    if (!quick) throw this.db.failed(new Error(`${apps.join(', ')} changed under the round's lock`), WHAT);
    const writes = new Map<string, Entry<Pending>>();
    for (const r of [...ran].reverse()) if (apps.includes(r.app)) r.t.rollback();
    for (const app of apps) {
      this.#fresh.delete(app);
      this.#locked.set(app, LOCKED_AFTER_MISS + 1);
      writes.set(app, { items: ran.filter((r) => r.app === app).map((r) => r.item), resolve: () => undefined, reject: () => undefined });
    }
    return { writes, checks: new Map(), sentAt: 0 };
  }

  /** The round trip that starts a round that writes (see #write): results BEGIN, created, locked, since, leases held, the fence. */
  #start(round: Round<Pending>, apps: string[], read: string[]): string {
    const lit = (x: string) => this.db.literal(x);
    const text = (xs: string[]) => arrayOf(xs, 'text', lit);
    const sql = ['BEGIN', `EXECUTE mock_create(${text(apps)})`, `EXECUTE mock_lock(${text(apps)})`, this.#since(read)];
    const leases = apps.flatMap((app) => (round.writes.get(app)?.items ?? []).flatMap((i) => (i.leases ?? []).map((l) => ({ ...l, app }))));
    sql.push(leases.length > 0 ? `EXECUTE mock_give_back(${text(leases.map((l) => l.app))}, ${text(leases.map((l) => l.kind))}, ${text(leases.map((l) => l.key))}, ${arrayOf(leases.map((l) => l.token), 'bigint', lit)})` : 'select where false', this.presence.fence);
    round.sentAt = performance.now();
    return sql.join(';\n');
  }

  /** mock_since of `apps` from where the cache stands. */
  #since(apps: string[]): string {
    const lit = (x: string) => this.db.literal(x);
    const at = apps.map((app) => this.cache.position(app));
    return `EXECUTE mock_since(${arrayOf(apps, 'text', lit)}, ${arrayOf(at.map((p) => p.v), 'bigint', lit)}, ${arrayOf(at.map((p) => p.b), 'bigint', lit)})`;
  }

  /** Runs one application's updates on its tenant, each tracked on its own. */
  #apply(app: string, cached: Cached, items: Pending[], held: Set<string>): Ran[] {
    const ran: Ran[] = [];
    for (const item of items) {
      if (item.leases?.some((l) => !held.has(leaseKey(app, l)))) {
        item.reject(new LeaseLostError(item.leases));
        continue;
      }
      const t = track(cached.tenant);
      try {
        const result = item.fn(t.proxy);
        if (result instanceof Promise) throw new TypeError('store.update() takes a synchronous function');
        const ops = t.ops(app);
        // Serialized now: a value that cannot be written (circular, say) fails this update alone, and
        // so does a key PostgreSQL's text cannot hold, rather than the round it shares.
        if (toWrites(ops).keys.some((k) => k.includes('\u0000'))) throw this.db.failed(new Error('a key holds the NUL character, which PostgreSQL text cannot store'), WHAT);
        ran.push({ app, item, t, result, ops });
      } catch (err) {
        t.rollback();
        item.reject(err);
      }
    }
    return ran;
  }

  /** Every PRUNE_EVERY writes of an application, its old tombstones go, in a transaction of their own. */
  #prune(app: string, writes: number): void {
    const n = (this.#sincePrune.get(app) ?? 0) + writes;
    this.#sincePrune.set(app, n % PRUNE_EVERY);
    if (n >= PRUNE_EVERY) void this.db.simple(SQL.prune(this.db.literal(app))).catch(() => undefined);
  }
}

const leaseKey = (app: string, l: { kind: string; key: string }) => `${app}\u0000${l.kind}\u0000${l.key}`;
