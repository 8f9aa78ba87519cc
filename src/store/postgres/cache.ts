import { emptyTenant, type Tenant } from '../schema.js';
import { applyRows, tenantOf, type RecordRow } from './rows.js';

/** One cached tenant and the database version it reflects. */
export interface Cached {
  tenant: Tenant;
  version: number;
  /** The version its row was created at: another one means the application was reset meanwhile. */
  born: number;
  /** A write whose outcome is unknown touched it: the next sync reloads it whole. */
  stale: boolean;
}

const EMPTY: Readonly<Tenant> = Object.freeze(emptyTenant());
for (const v of Object.values(EMPTY)) if (v !== null) Object.freeze(v);

/** The tenants this instance has seen. Callers run on the application's chain (chains.ts). */
export class TenantCache {
  readonly #map = new Map<string, Cached>();

  constructor(
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

  /** What the cache asks since() for: its version and birth, 0 for none (or stale: it is then read whole). */
  position(app: string): { v: number; b: number } {
    const c = this.#map.get(app);
    return c && !c.stale ? { v: c.version, b: c.born } : { v: 0, b: c?.born ?? 0 };
  }

  /**
   * Brings `app` up to the database with what since() answered for it (its rows; none: it has no
   * state). A tenant of another birth than the cached one was reset meanwhile: its listeners are told.
   */
  apply(app: string, rows: SinceRow[] | undefined): void {
    const c = this.#map.get(app);
    const head = rows?.[0];
    if (!head) {
      if (c) this.dropped(app);
      return;
    }
    if (c && c.born !== Number(head.born)) this.dropped(app);
    const version = Number(head.tv);
    const since = Number(head.since);
    const records = (rows as SinceRow[]).filter((r) => r.field !== null) as RecordRow[];
    const kept = this.#map.get(app);
    if (since > 0 && kept) {
      applyRows(kept.tenant, records);
      kept.version = version;
    } else this.#map.set(app, { tenant: tenantOf(records), version, born: Number(head.born), stale: false });
  }
}

/** A row of SQL.since, as the driver gives it (bigints as strings). */
export interface SinceRow {
  app: string | null;
  tv: string;
  born: string;
  pruned_version: string;
  since: string;
  field: string | null;
  key: string;
  value: unknown;
  rv: string;
}
