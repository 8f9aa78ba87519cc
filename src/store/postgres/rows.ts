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

/**
 * The operations of several updates of one tenant, one after the other, as one: every field and key
 * they touched, at its value now (changes.ts track().ops() does the same for one update). A field
 * one of them replaced whole is written whole.
 */
export function mergeOps(app: string, tenant: Tenant, lists: Op[][]): Op[] {
  const raw = tenant as unknown as Record<string, unknown>;
  const whole = new Set<string>();
  const keys = new Map<string, Set<string>>();
  for (const ops of lists) {
    for (const op of ops) {
      if (op[0] === 'f' || op[0] === 'df') whole.add(op[2]);
      else if (op[0] === 'k' || op[0] === 'dk') {
        let s = keys.get(op[2]);
        if (!s) keys.set(op[2], (s = new Set()));
        s.add(op[3]);
      }
    }
  }
  const out: Op[] = [];
  for (const f of whole) out.push(raw[f] === undefined ? ['df', app, f] : ['f', app, f, raw[f]]);
  for (const [f, ks] of keys) {
    if (whole.has(f)) continue;
    const coll = raw[f];
    for (const k of ks) {
      const v = coll !== null && typeof coll === 'object' && Object.hasOwn(coll, k) ? (coll as Record<string, unknown>)[k] : undefined;
      out.push(v === undefined ? ['dk', app, f, k] : ['k', app, f, k, v]);
    }
  }
  return out;
}

const COLLECTIONS = new Set(Object.entries(emptyTenant()).filter(([, v]) => v !== null && typeof v === 'object').map(([k]) => k));

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
