import type { Op } from '../changes.js';
import { dict, emptyTenant, type Tenant } from '../schema.js';

/** A row of mock_records as read: value already parsed (NULL: a tombstone). */
export interface RecordRow {
  field: string;
  key: string;
  value: unknown;
}

/** What one update writes: rows to upsert (value as JSON text, null for a tombstone), and fields replaced whole. */
export interface Writes {
  fields: string[];
  keys: string[];
  values: Array<string | null>;
  /** Fields set or deleted whole: their entry rows become tombstones. */
  replaced: string[];
}

/** The change tracker's operations (changes.ts) as rows of mock_records. */
export function toWrites(ops: Op[]): Writes {
  const w: Writes = { fields: [], keys: [], values: [], replaced: [] };
  const put = (field: string, key: string, value: unknown) => {
    w.fields.push(field);
    w.keys.push(key);
    // undefined (a function, say) is not JSON: it is stored as the field's deletion, as a restart would read it.
    w.values.push(value === undefined ? null : (JSON.stringify(value) ?? null));
  };
  for (const op of ops) {
    switch (op[0]) {
      case 'f':
        put('', op[2], op[3]);
        w.replaced.push(op[2]);
        break;
      case 'df':
        put('', op[2], undefined);
        w.replaced.push(op[2]);
        break;
      case 'k':
        put(op[2], op[3], op[4]);
        break;
      case 'dk':
        put(op[2], op[3], undefined);
        break;
      default:
        throw new Error(`operation ${op[0]} is not written per row`);
    }
  }
  return w;
}

const COLLECTIONS = new Set(Object.entries(emptyTenant()).filter(([, v]) => v !== null).map(([k]) => k));

/** Sets a key of a dictionary; a "__proto__" key stays data. */
function set(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/**
 * Applies rows, in version order (within a version, entry rows before whole fields: a field replaced
 * whole tombstones its old entries in the same version), to a tenant. Mirrors changes.ts applyOp.
 */
export function applyRows(tenant: Tenant, rows: RecordRow[]): void {
  const raw = tenant as unknown as Record<string, unknown>;
  for (const r of rows) {
    if (r.field === '') {
      if (r.value === null) delete raw[r.key];
      else {
        // Collections are dictionaries without a prototype, as normalizeState makes them.
        if (COLLECTIONS.has(r.key) && isPlainObject(r.value)) Object.setPrototypeOf(r.value, null);
        set(raw, r.key, r.value);
      }
      continue;
    }
    let coll = raw[r.field];
    if (coll === null || typeof coll !== 'object') {
      if (r.value === null) continue;
      coll = raw[r.field] = dict();
    }
    if (r.value === null) delete (coll as Record<string, unknown>)[r.key];
    else set(coll as Record<string, unknown>, r.key, r.value);
  }
}

/** A tenant built from its live rows (no tombstones); fields it lacks get their empty default. */
export function tenantOf(rows: RecordRow[]): Tenant {
  const t = emptyTenant();
  applyRows(t, rows);
  const raw = t as unknown as Record<string, unknown>;
  for (const [field, empty] of Object.entries(emptyTenant())) if (raw[field] === undefined) raw[field] = empty;
  return t;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
