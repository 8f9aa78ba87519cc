import { randomUUID } from 'node:crypto';
import type { TenantCache } from './cache.js';
import type { Chains } from './chains.js';
import type { Db } from './db.js';
import { CHANNEL } from './listen.js';
import type { Presence } from './presence.js';
import { SQL } from './sql.js';

/** A notification's payload must stay under 8000 bytes: longer names are announced as "check everything". */
const MAX_NAME = 2000;

/**
 * What the other instances hear of, by NOTIFY on mock_changes (never inside a write's transaction:
 * PostgreSQL serializes the commits of every notifying transaction of the cluster on one lock):
 * - resets, with the reset's version (a tenant written again after it, born later, is kept); one
 *   missed while the LISTEN connection was down is found by the `born` of each cached tenant;
 * - topics of the dashboard's live events (journal, state), batched by the caller;
 * - settings: a tenant field replaced whole (an application's clock offset, its webhook receiver)
 *   or the server state. The catalog reads the clock offsets without asking the database, so the
 *   other instances catch up when they hear of the change, a few milliseconds after it.
 */
export class Notices {
  readonly #listeners: Array<(app: string | null) => void> = [];
  /** Tells this instance's notifications from the others'. */
  readonly #id = randomUUID();
  #onDue: (from: string) => void = () => undefined;

  constructor(
    private readonly db: Db,
    private readonly cache: TenantCache,
    private readonly chains: Chains,
    /** Another instance changed an application's settings (null: the server state). */
    private readonly onChanged: (app: string | null) => void,
    /** Another instance announced topics of the dashboard's live events. */
    private readonly onTopics: (topics: string[]) => void = () => undefined,
  ) {}

  get id(): string {
    return this.#id;
  }

  /** Another instance announced due work (mock_due). */
  onDue(listener: (from: string) => void): void {
    this.#onDue = listener;
  }

  on(listener: (app: string | null) => void): void {
    this.#listeners.push(listener);
  }

  tell(app: string | null): void {
    for (const l of this.#listeners) l(app);
  }

  /** Drops one application, its journal with it (its row locked first: a write on another instance finishes before the rows go). */
  reset(application: string, presence: Presence): Promise<void> {
    return this.chains.run(application, async () => {
      await presence.ready;
      const app = this.db.literal(application);
      const what = application.length > MAX_NAME ? `'check', true` : `'r', ${app}`;
      await this.db.simple(`BEGIN; ${presence.fence}; select 1 from mock_tenants where app = ${app} for update;
        delete from mock_records where app = ${app}; delete from mock_tenants where app = ${app}; delete from mock_due where app = ${app};
        delete from mock_journal where app = ${app}; delete from mock_journal_apps where app = ${app};
        ${this.#notify(what)}; COMMIT`);
      this.cache.delete(application);
      this.tell(application);
    });
  }

  async resetAll(presence: Presence): Promise<void> {
    await presence.ready;
    const apps = this.cache.apps();
    await this.db.simple(`BEGIN; ${presence.fence}; truncate mock_records, mock_tenants, mock_due, mock_journal, mock_journal_detail, mock_journal_apps; ${this.#notify(`'all', true`)}; COMMIT`);
    for (const app of apps) this.cache.delete(app);
    this.tell(null);
  }

  /** Tells the other instances that an application's settings (null: the server state) changed; best effort. */
  changed(app: string | null): void {
    if (app !== null && app.length > MAX_NAME) return;
    const payload = JSON.stringify(app === null ? { i: this.#id, s: true } : { i: this.#id, c: app });
    void this.db.query('select pg_notify($1, $2)', [CHANNEL, payload]).catch(() => undefined);
  }

  /** Tells the other instances which topics changed here (the caller batches: a few times a second at most); best effort. */
  announce(topics: string[]): void {
    void this.db.query('select pg_notify($1, $2)', [CHANNEL, JSON.stringify({ i: this.#id, t: topics })]).catch(() => undefined);
  }

  /** A notification from the LISTEN connection. */
  heard(payload: string): void {
    let m: { i?: string; r?: string; c?: string; s?: boolean; all?: boolean; check?: boolean; v?: number; d?: boolean; t?: unknown };
    try {
      m = JSON.parse(payload);
    } catch {
      return;
    }
    if (m.i === this.#id) return;
    if (m.d) return this.#onDue(String(m.i));
    const v = Number(m.v);
    const app = m.r;
    if (Array.isArray(m.t)) this.onTopics(m.t.filter((x): x is string => typeof x === 'string'));
    else if (typeof m.c === 'string') this.onChanged(m.c);
    else if (m.s) this.onChanged(null);
    else if (m.all) void this.#allSeen(v).catch(() => undefined);
    else if (typeof app === 'string') void this.chains.run(app, async () => this.#seen(app, v)).catch(() => undefined);
    else if (m.check) void this.check().catch(() => undefined);
  }

  #seen(app: string, v: number): void {
    const c = this.cache.get(app);
    if (c && c.born < v) this.cache.dropped(app);
  }

  async #allSeen(v: number): Promise<void> {
    const dropped: string[] = [];
    let newer = false;
    await Promise.all(
      this.cache.apps().map((app) =>
        this.chains.run(app, async () => {
          const c = this.cache.get(app);
          if (c && c.born < v) {
            this.cache.delete(app);
            dropped.push(app);
          } else if (c) newer = true;
        }),
      ),
    );
    // Applications written again after the reset keep what their listeners hold.
    if (!newer) this.tell(null);
    else for (const app of dropped) this.tell(app);
  }

  /** After notifications may have been missed: drops (and tells of) every cached tenant reset meanwhile. */
  async check(): Promise<void> {
    const apps = this.cache.apps();
    if (apps.length === 0) return;
    const { rows } = await this.db.query(SQL.births, [apps]);
    const born = new Map(rows.map((r) => [r.app as string, Number(r.born)]));
    await Promise.all(
      apps.map((app) =>
        this.chains.run(app, async () => {
          const c = this.cache.get(app);
          if (c && born.get(app) !== c.born) this.cache.dropped(app);
        }),
      ),
    );
  }

  /** The statement that tells the other instances, with the reset's version. */
  #notify(what: string): string {
    return `select pg_notify('${CHANNEL}', json_build_object('i', ${this.db.literal(this.#id)}, ${what}, 'v', nextval('mock_version'))::text)`;
  }
}
