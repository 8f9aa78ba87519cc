import type pg from 'pg';
import { emptyTenant, type Tenant } from '../schema.js';
import type { Db } from './db.js';
import { applyRows, tenantOf, type RecordRow } from './rows.js';
import { SQL } from './sql.js';

/** One cached tenant and the database version it reflects. */
export interface Cached {
  tenant: Tenant;
  version: number;
  /** The version its row was created at: another one means the application was reset meanwhile. */
  born: number;
  /** A write whose outcome is unknown touched it: the next sync reloads it whole. */
  stale: boolean;
}

/** A row of mock_tenants, as numbers. */
export interface Versions {
  version: number;
  born: number;
  pruned: number;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a row of mock_tenants as the driver gives it (bigints as strings)
export function versionsOf(r: any): Versions {
  return { version: Number(r.version), born: Number(r.born), pruned: Number(r.pruned_version) };
}

const EMPTY: Readonly<Tenant> = Object.freeze(emptyTenant());
for (const v of Object.values(EMPTY)) if (v !== null) Object.freeze(v);

/** The tenants this instance has seen. Callers run on the application's chain (chains.ts). */
export class TenantCache {
  readonly #map = new Map<string, Cached>();

  constructor(
    private readonly db: Db,
    /** A cached tenant found reset: its listeners are told. */
    private readonly onDropped: (app: string) => void,
  ) {}

  tenant(app: string): Readonly<Tenant> {
    return this.#map.get(app)?.tenant ?? EMPTY;
  }

  get(app: string): Cached | undefined {
    return this.#map.get(app);
  }

  set(app: string, c: Cached): void {
    this.#map.set(app, c);
  }

  delete(app: string): void {
    this.#map.delete(app);
  }

  apps(): string[] {
    return [...this.#map.keys()];
  }

  /** Forgets a tenant that was reset, and tells. */
  dropped(app: string): void {
    this.#map.delete(app);
    this.onDropped(app);
  }

  /**
   * Brings `app` up to `at` (its row as just read; null: no row, no state): nothing when it is there
   * already, the rows written since when it can, else a whole load. On `client` inside a transaction.
   */
  async bringUp(app: string, at: Versions | null, client?: pg.PoolClient): Promise<void> {
    let c = this.#map.get(app);
    if (at === null) {
      if (c) this.dropped(app);
      return;
    }
    if (c && c.born !== at.born) {
      this.dropped(app);
      c = undefined;
    }
    if (c && !c.stale && c.version === at.version) return;
    const since = c && !c.stale && c.version >= at.pruned ? c.version : 0;
    const { rows } = await this.db.query(SQL.since, [app, since], client);
    const head = rows[0];
    if (!head) {
      if (c) this.dropped(app);
      return;
    }
    const now = versionsOf({ version: head.tv, born: head.born, pruned_version: head.pruned_version });
    // Reset, or pruned past the cache, between the two reads: load it whole.
    if (since > 0 && (now.born !== at.born || now.pruned > since)) return this.bringUp(app, { ...now, pruned: Infinity }, client);
    if (c && now.born !== c.born) this.dropped(app);
    const records = rows.filter((r) => r.field !== null) as RecordRow[];
    if (since > 0 && c) {
      applyRows(c.tenant, records);
      c.version = now.version;
    } else this.#map.set(app, { tenant: tenantOf(records), version: now.version, born: now.born, stale: false });
  }
}
