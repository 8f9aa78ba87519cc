import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { track } from '../changes.js';
import { emptyTenant, type ServerState, type Tenant } from '../schema.js';
import type { Store, StoreStats } from '../index.js';
import { redactUrl, unavailable } from './errors.js';
import { CHANNEL } from './listen.js';
import { applyRows, tenantOf, toWrites, type RecordRow } from './rows.js';

/** One cached tenant and the database version it reflects. */
interface Cached {
  tenant: Tenant;
  version: number;
  born: number;
  /** A write whose outcome is unknown touched it: the next sync reloads it whole. */
  stale: boolean;
}

interface Versions {
  version: number;
  born: number;
  pruned: number;
}

/** Every this many writes of one application by this instance, tombstones older than the last prune go. */
const PRUNE_EVERY = 200;
/** A payload must stay under NOTIFY's 8000 bytes; longer application names are announced as "check everything". */
const MAX_NAME = 2000;

const EMPTY: Readonly<Tenant> = Object.freeze(emptyTenant());
for (const v of Object.values(EMPTY)) if (v !== null) Object.freeze(v);

const SQL = {
  versions: `select t.version, t.born, t.pruned_version, (select version from mock_server where id = 1) as server_version
    from (select 1) one left join mock_tenants t on t.app = $1`,
  // The tenant row and its rows newer than $2 in one snapshot; live rows only for a whole load ($2 = 0).
  since: `select t.version as tv, t.born, t.pruned_version, r.field, r.key, r.value, r.version
    from mock_tenants t left join mock_records r on r.app = t.app and r.version > $2 and (r.value is not null or $2 > 0)
    where t.app = $1 order by r.version, r.field = ''`,
  lock: (app: string) =>
    `BEGIN; insert into mock_tenants (app, version, born) values (${app}, 0, nextval('mock_version')) on conflict (app) do nothing;
     select version, born, pruned_version, nextval('mock_version') as next from mock_tenants where app = ${app} for update`,
  write: `with gone as (
      update mock_records set value = null, version = $2 where app = $1 and field = any($3::text[]) and value is not null
    ), up as (
      insert into mock_records (app, field, key, value, version)
      select $1, u.f, u.k, u.v::json, $2 from unnest($4::text[], $5::text[], $6::text[]) as u(f, k, v)
      on conflict (app, field, key) do update set value = excluded.value, version = excluded.version
    )
    update mock_tenants set version = $2 where app = $1`,
  prune: `with d as (
      delete from mock_records where app = $1 and value is null and version <= (select prune_mark from mock_tenants where app = $1) returning version
    )
    update mock_tenants set pruned_version = greatest(pruned_version, coalesce((select max(version) from d), 0)), prune_mark = $2 where app = $1`,
};

/**
 * The PostgreSQL store: the database holds the state, each instance a cache of the tenants it has
 * seen (so tenant() stays synchronous). sync() brings a tenant up to the database before a request
 * reads it; update() runs under the tenant's row lock on a cache brought up to date first, and
 * resolves once committed. Everything this instance does to one application (writes, syncs, resets
 * it learns of) runs in order on a promise chain of its own, so a cache is never changed by two at once.
 */
export class PostgresStore implements Store {
  readonly kind = 'postgres' as const;
  readonly location: string;
  readonly logLocation = null;
  readonly stats: StoreStats = { writes: 0, flushes: 0, compactions: 0 };
  readonly #cache = new Map<string, Cached>();
  readonly #chains = new Map<string, { tail: Promise<void>; queued: Promise<void> | null }>();
  readonly #resetListeners: Array<(app: string | null) => void> = [];
  readonly #serverListeners: Array<(s: Readonly<ServerState>) => void> = [];
  readonly #writesSincePrune = new Map<string, number>();
  /** Tells this instance's notifications from the others'. */
  readonly #id = randomUUID();
  #server: ServerState;
  #serverVersion: number;
  #closed = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly db: string,
    server: { doc: ServerState; version: number },
    private readonly onClose: () => Promise<void>,
  ) {
    this.location = redactUrl(db);
    this.#server = server.doc;
    this.#serverVersion = server.version;
  }

  tenant(application: string): Readonly<Tenant> {
    return this.#cache.get(application)?.tenant ?? EMPTY;
  }

  applications(): string[] {
    return [...this.#cache.keys()];
  }

  server(): Readonly<ServerState> {
    return this.#server;
  }

  onReset(listener: (application: string | null) => void): void {
    this.#resetListeners.push(listener);
  }

  onServerChange(listener: (server: Readonly<ServerState>) => void): void {
    this.#serverListeners.push(listener);
  }

  /** Loads every tenant and the server state (at start). */
  async loadAll(): Promise<void> {
    await this.syncAll();
  }

  sync(application: string): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('store is closed'));
    const chain = this.#chain(application);
    // A sync queued behind other work and not started yet serves every request that arrives meanwhile.
    if (chain.queued) return chain.queued;
    const p = this.#run(application, async () => {
      chain.queued = null;
      const { rows } = await this.#query(SQL.versions, [application]);
      const r = rows[0];
      await this.#serverAt(Number(r.server_version));
      await this.#bringUp(this.pool, application, r.version === null ? null : versionsOf(r));
    });
    chain.queued = p;
    return p;
  }

  async syncAll(): Promise<void> {
    if (this.#closed) throw new Error('store is closed');
    const [{ rows }, server] = await Promise.all([
      this.#query('select app, version, born, pruned_version from mock_tenants', []),
      this.#query('select version from mock_server where id = 1', []),
    ]);
    await this.#serverAt(Number(server.rows[0]?.version ?? 0));
    const live = new Map(rows.map((r) => [r.app as string, versionsOf(r)]));
    const apps = new Set([...live.keys(), ...this.#cache.keys()]);
    await Promise.all([...apps].map((app) => this.#run(app, () => this.#bringUp(this.pool, app, live.get(app) ?? null))));
  }

  update<T>(application: string, fn: (tenant: Tenant) => T): Promise<T> {
    if (this.#closed) return Promise.reject(new Error('store is closed'));
    return this.#run(application, () => this.#write(application, fn));
  }

  async #write<T>(app: string, fn: (tenant: Tenant) => T): Promise<T> {
    const client = await this.#connect();
    let broken: unknown = null;
    try {
      let results: pg.QueryResult[];
      try {
        results = (await client.query(SQL.lock(client.escapeLiteral(app)))) as unknown as pg.QueryResult[];
      } catch (e) {
        throw (broken = unavailable(e, this.db, 'did not answer'));
      }
      const created = results[1]?.rowCount === 1;
      const row = results[2]?.rows[0];
      const next = Number(row.next);
      try {
        if (!created) await this.#bringUp(client, app, versionsOf(row));
        else if (this.#cache.has(app)) this.#dropped(app); // the row was gone: reset by another instance
      } catch (e) {
        throw (broken = e);
      }
      const cached = this.#cache.get(app) ?? { tenant: emptyTenant(), version: 0, born: Number(row.born), stale: false };
      this.#cache.set(app, cached);
      const t = track(cached.tenant);
      let result: T;
      let writes: ReturnType<typeof toWrites>;
      try {
        result = fn(t.proxy);
        if (result instanceof Promise) throw new TypeError('store.update() takes a synchronous function');
        writes = toWrites(t.ops(app));
      } catch (err) {
        t.rollback();
        if (created) this.#cache.delete(app);
        await client.query('ROLLBACK').catch((e: unknown) => (broken = e));
        throw err;
      }
      if (writes.keys.length === 0 && !created) {
        await client.query('ROLLBACK').catch((e: unknown) => (broken = e));
        return result;
      }
      try {
        await client.query(SQL.write, [app, next, writes.replaced, writes.fields, writes.keys, writes.values]);
        if (this.#pruneDue(app)) await client.query(SQL.prune, [app, next]);
        await client.query('COMMIT');
      } catch (e) {
        // Committed or not, nobody knows (a connection lost on COMMIT): the next sync reloads the tenant.
        t.rollback();
        if (created) this.#cache.delete(app);
        else cached.stale = true;
        throw (broken = unavailable(e, this.db, 'did not take the change, so it was not acknowledged'));
      }
      cached.version = next;
      this.stats.writes++;
      this.stats.flushes++;
      return result;
    } finally {
      client.release(broken ? true : undefined);
    }
  }

  updateServer(fn: (server: ServerState) => void): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('store is closed'));
    return this.#run('\u0000server', async () => {
      const client = await this.#connect();
      let broken = false;
      try {
        let fresh: { doc: ServerState; version: string; next: string };
        try {
          await client.query('BEGIN');
          fresh = (await client.query("select doc, version, nextval('mock_version') as next from mock_server where id = 1 for update")).rows[0];
        } catch (e) {
          broken = true;
          throw unavailable(e, this.db, 'did not answer');
        }
        const next = { ...fresh.doc };
        let text: string;
        try {
          fn(next);
          text = JSON.stringify(next);
        } catch (err) {
          await client.query('ROLLBACK').catch(() => (broken = true));
          throw err;
        }
        try {
          await client.query('update mock_server set doc = $1, version = $2 where id = 1', [text, fresh.next]);
          await client.query('COMMIT');
        } catch (e) {
          broken = true;
          throw unavailable(e, this.db, 'did not take the change, so it was not acknowledged');
        }
        this.stats.writes++;
        this.stats.flushes++;
        if (Number(fresh.next) > this.#serverVersion) {
          this.#server = next;
          this.#serverVersion = Number(fresh.next);
        }
      } finally {
        client.release(broken || undefined);
      }
    });
  }

  reset(application?: string): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('store is closed'));
    if (application === undefined) return this.#resetAll();
    return this.#run(application, async () => {
      const app = this.#literal(application);
      // Names too long for a notification's 8000 bytes are announced as "check every cached tenant".
      const what = application.length > MAX_NAME ? `'check', true` : `'r', ${app}`;
      // The row lock first: a write of this application on another instance finishes before the rows go.
      await this.#simple(`BEGIN; select 1 from mock_tenants where app = ${app} for update;
        delete from mock_records where app = ${app}; delete from mock_tenants where app = ${app};
        ${this.#notify(what)}; COMMIT`);
      this.stats.writes++;
      this.#cache.delete(application);
      for (const l of this.#resetListeners) l(application);
    });
  }

  async #resetAll(): Promise<void> {
    const apps = [...this.#cache.keys()];
    await this.#simple(`BEGIN; truncate mock_records, mock_tenants; ${this.#notify(`'all', true`)}; COMMIT`);
    this.stats.writes++;
    for (const app of apps) this.#cache.delete(app);
    for (const l of this.#resetListeners) l(null);
  }

  /** A notification of another instance: a reset it made. */
  onNotification(payload: string): void {
    let m: { i?: string; r?: string; all?: boolean; check?: boolean; v?: number };
    try {
      m = JSON.parse(payload);
    } catch {
      return;
    }
    if (m.i === this.#id || this.#closed) return;
    const v = Number(m.v);
    if (m.all) void this.#resetAllSeen(v).catch(() => undefined);
    else if (typeof m.r === 'string') {
      const app = m.r;
      void this.#run(app, async () => {
        const c = this.#cache.get(app);
        if (c && c.born < v) this.#dropped(app);
      }).catch(() => undefined);
    } else if (m.check) void this.checkResets().catch(() => undefined);
  }

  async #resetAllSeen(v: number): Promise<void> {
    const dropped: string[] = [];
    let newer = false;
    await Promise.all(
      [...this.#cache.keys()].map((app) =>
        this.#run(app, async () => {
          const c = this.#cache.get(app);
          if (c && c.born < v) {
            this.#cache.delete(app);
            dropped.push(app);
          } else if (c) newer = true;
        }),
      ),
    );
    // Applications written after the reset keep what their listeners hold.
    if (!newer) for (const l of this.#resetListeners) l(null);
    else for (const app of dropped) for (const l of this.#resetListeners) l(app);
  }

  /** After notifications may have been missed: drops (and tells of) every cached tenant reset meanwhile. */
  async checkResets(): Promise<void> {
    const apps = [...this.#cache.keys()];
    if (apps.length === 0) return;
    const { rows } = await this.#query('select app, born from mock_tenants where app = any($1)', [apps]);
    const born = new Map(rows.map((r) => [r.app as string, Number(r.born)]));
    await Promise.all(
      apps.map((app) =>
        this.#run(app, async () => {
          const c = this.#cache.get(app);
          if (c && born.get(app) !== c.born) this.#dropped(app);
        }),
      ),
    );
  }

  async ping(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('no answer within 3 s')), 3000)));
    try {
      await Promise.race([this.pool.query('select 1'), late]);
    } catch (e) {
      throw unavailable(e, this.db, 'does not answer');
    } finally {
      clearTimeout(timer);
    }
  }

  async flush(): Promise<void> {
    while (this.#chains.size > 0) await Promise.all([...this.#chains.values()].map((c) => c.tail));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.flush();
    await this.onClose();
  }

  /**
   * Brings the cache of `app` up to `at` (its row as just read; null: no row, the application has no
   * state): nothing when it is there already, the rows written since when it can, else a whole load.
   */
  async #bringUp(db: pg.Pool | pg.PoolClient, app: string, at: Versions | null): Promise<void> {
    let c = this.#cache.get(app);
    if (at === null) {
      if (c) this.#dropped(app);
      return;
    }
    if (c && c.born !== at.born) {
      this.#dropped(app);
      c = undefined;
    }
    if (c && !c.stale && c.version === at.version) return;
    const since = c && !c.stale && c.version >= at.pruned ? c.version : 0;
    const { rows } = await this.#query(SQL.since, [app, since], db);
    const head = rows[0];
    if (!head) {
      if (c) this.#dropped(app);
      return;
    }
    const now = versionsOf({ version: head.tv, born: head.born, pruned_version: head.pruned_version });
    // Reset, or pruned past the cache, between the two reads: load it whole.
    if (since > 0 && (now.born !== at.born || now.pruned > since)) return this.#bringUp(db, app, { ...now, pruned: Infinity });
    if (c && now.born !== c.born) this.#dropped(app);
    const records = rows.filter((r) => r.field !== null) as RecordRow[];
    if (since > 0 && c) {
      applyRows(c.tenant, records);
      c.version = now.version;
    } else this.#cache.set(app, { tenant: tenantOf(records), version: now.version, born: now.born, stale: false });
  }

  /** Takes the server state when the database has a newer one (written by another instance). */
  async #serverAt(version: number): Promise<void> {
    if (version <= this.#serverVersion) return;
    const { rows } = await this.#query('select doc, version from mock_server where id = 1', []);
    const r = rows[0];
    if (!r || Number(r.version) <= this.#serverVersion) return;
    this.#server = r.doc;
    this.#serverVersion = Number(r.version);
    for (const l of this.#serverListeners) l(this.#server);
  }

  #dropped(app: string): void {
    this.#cache.delete(app);
    for (const l of this.#resetListeners) l(app);
  }

  #pruneDue(app: string): boolean {
    const n = (this.#writesSincePrune.get(app) ?? 0) + 1;
    this.#writesSincePrune.set(app, n % PRUNE_EVERY);
    return n >= PRUNE_EVERY;
  }

  #chain(app: string) {
    let c = this.#chains.get(app);
    if (!c) this.#chains.set(app, (c = { tail: Promise.resolve(), queued: null }));
    return c;
  }

  /** Runs `job` after everything queued for `app` on this instance. */
  #run<T>(app: string, job: () => Promise<T>): Promise<T> {
    const chain = this.#chain(app);
    const p = chain.tail.then(job);
    const tail = p.then(
      () => undefined,
      () => undefined,
    );
    chain.tail = tail;
    void tail.then(() => {
      if (chain.tail === tail) this.#chains.delete(app);
    });
    return p;
  }

  async #connect(): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect();
    } catch (e) {
      throw unavailable(e, this.db, 'cannot be reached');
    }
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- rows as the driver gives them, read field by field
  async #query(sql: string, params: unknown[], db: pg.Pool | pg.PoolClient = this.pool): Promise<pg.QueryResult<any>> {
    try {
      return await db.query(sql, params);
    } catch (e) {
      throw unavailable(e, this.db, 'did not answer');
    }
  }

  /** Several statements in one round trip (no parameters: literals are escaped); the connection is dropped on failure. */
  async #simple(sql: string): Promise<void> {
    const client = await this.#connect();
    try {
      await client.query(sql);
      client.release();
    } catch (e) {
      client.release(true);
      throw unavailable(e, this.db, 'did not take the change, so it was not acknowledged');
    }
  }

  #literal(s: string): string {
    return pg.escapeLiteral(s);
  }

  /** Tells the other instances of a reset, with its version (a cache born after it is not dropped). */
  #notify(what: string): string {
    return `select pg_notify('${CHANNEL}', json_build_object('i', ${this.#literal(this.#id)}, ${what}, 'v', nextval('mock_version'))::text)`;
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a row of mock_tenants as the driver gives it
function versionsOf(r: any): Versions {
  return { version: Number(r.version), born: Number(r.born), pruned: Number(r.pruned_version) };
}
