import { createHash } from 'node:crypto';
import type { Op } from '../changes.js';
import { emptyTenant, type Tenant } from '../schema.js';
import { applyRows, tenantOf, type RecordRow, type Writes } from './rows.js';

/**
 * An entry whose JSON is at least this long is remembered by its digest once this instance wrote it,
 * so that a write that only read it (update() writes back what it reads) leaves it out: an order of
 * 100 items is 80 KB, and a scenario run call whose first step waits reads its order (one whose first
 * step is due at once changes it). A shorter one costs less to write again than to digest.
 */
const REMEMBERED = 4096;
const digest = (json: string): string => createHash('sha256').update(json).digest('base64');

/** One cached tenant and the database version it reflects. */
export interface Cached {
  tenant: Tenant;
  version: number;
  /** The version its row was created at: another one means the application was reset meanwhile. */
  born: number;
  /** A write whose outcome is unknown touched it: the next sync reloads it whole. */
  stale: boolean;
  /**
   * The digests of large entries (`field\0key`) as the database holds them, this instance having
   * written them; an entry another instance wrote since is not here (apply).
   */
  stored?: Map<string, string>;
}

/**
 * An entry (field, key) as a write leaves it: its digest, or null when it is not remembered (for a
 * field replaced whole, field '' and key the field: none of its entries is).
 */
export type Digest = [string, string, string | null];

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

  /** Whether the cached tenant reflects the database at `version` or later (and no unknown outcome since). */
  holds(app: string, version: number): boolean {
    const c = this.#map.get(app);
    return c !== undefined && !c.stale && c.version >= version;
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
      if (kept.stored) for (const r of records) forget(kept.stored, r.field, r.key);
    } else this.#map.set(app, { tenant: tenantOf(records), version, born: Number(head.born), stale: false });
  }
}

/**
 * `writes` (one row for each of `ops`) without the large entries whose JSON is what the database
 * holds as this instance wrote it, and their operations without them (the due rows follow them).
 */
export function trim(c: Cached, ops: Op[], writes: Writes): { ops: Op[]; writes: Writes; digests: Digest[] } {
  const digests: Digest[] = [];
  const keep: number[] = [];
  for (let i = 0; i < ops.length; i++) {
    const field = writes.fields[i] as string;
    const key = writes.keys[i] as string;
    const value = writes.values[i] ?? null;
    const d = field !== '' && value !== null && value.length >= REMEMBERED ? digest(value) : null;
    if (d !== null && c.stored?.get(`${field}\u0000${key}`) === d) continue;
    digests.push([field, key, d]);
    keep.push(i);
  }
  if (keep.length === ops.length) return { ops, writes, digests };
  const pick = <T>(xs: T[]) => keep.map((i) => xs[i] as T);
  return { ops: pick(ops), writes: { fields: pick(writes.fields), keys: pick(writes.keys), values: pick(writes.values), replaced: writes.replaced }, digests };
}

/** After the commit of a write of `c`: what the database holds now. */
export function remember(c: Cached, digests: Digest[]): void {
  for (const [field, key, d] of digests) {
    if (d !== null) (c.stored ??= new Map()).set(`${field}\u0000${key}`, d);
    else if (c.stored) forget(c.stored, field, key);
  }
}

/** An entry is no longer known as written here (field '': every entry of the field `key`). */
function forget(stored: Map<string, string>, field: string, key: string): void {
  if (field !== '') stored.delete(`${field}\u0000${key}`);
  else for (const id of stored.keys()) if (id.startsWith(`${key}\u0000`)) stored.delete(id);
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
