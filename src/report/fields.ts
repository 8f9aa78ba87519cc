import { clip } from '../http/errors.js';
import { nearest } from '../config.js';
import type { FindingId } from './findings.js';

/** What a route's query or body schema says about field names: the ones it takes, the deprecated ones. */
export interface Fields {
  known: Set<string>;
  deprecated: Set<string>;
}

type PropertiesSchema = { properties?: Record<string, { description?: unknown }>; additionalProperties?: unknown; items?: PropertiesSchema; anyOf?: PropertiesSchema[] };

/**
 * The fields of an object schema (of an array's items, or of any branch of a union); null when there
 * is nothing to compare with: no schema, or one that lists no property and takes any (the customer's,
 * which its cart's schema decides). A schema that lists properties and lets others through (cart
 * items, orders) still names what it reads: anything else is ignored, which is what the report says.
 */
export function schemaFields(schema: PropertiesSchema | undefined, extra: readonly string[] = []): Fields | null {
  if (!schema) return null;
  const props = schema.properties ?? {};
  if (Object.keys(props).length) {
    const deprecated = Object.keys(props).filter((k) => /^deprecated/i.test(String(props[k]?.description ?? '')));
    return { known: new Set([...Object.keys(props), ...extra]), deprecated: new Set(deprecated) };
  }
  if (schema.additionalProperties === true) return null;
  for (const s of [schema.items, ...(schema.anyOf ?? [])]) {
    const found = schemaFields(s, extra);
    if (found) return found;
  }
  return schema.properties ? { known: new Set(extra), deprecated: new Set() } : null;
}

/** Keys of an object (or of each object of an array) outside `known`. */
export function unknownKeys(value: unknown, known: Set<string>): string[] {
  const out: string[] = [];
  const check = (o: unknown) => {
    if (o === null || typeof o !== 'object' || Array.isArray(o)) return;
    for (const k of Object.keys(o)) if (!known.has(k) && !out.includes(k)) out.push(k);
  };
  if (Array.isArray(value)) value.forEach(check);
  else check(value);
  return out;
}

/** Keys of an object (or of each object of an array) that are in `names`. */
export function keysIn(value: unknown, names: Set<string>): string[] {
  const out: string[] = [];
  if (!names.size || value === null || typeof value !== 'object') return out;
  for (const o of Array.isArray(value) ? value : [value]) {
    if (o === null || typeof o !== 'object') continue;
    for (const k in o) if (names.has(k) && !out.includes(k)) out.push(k);
  }
  return out;
}

/** Names the unknown fields, each with the known one it is likely a misspelling of. */
export function describeUnknown(unknown: string[], known: Set<string>): string {
  return unknown
    .slice(0, 5)
    .map((k) => {
      const [near] = nearest(k, [...known]);
      // The names are the client's input: each is clipped like any echo.
      return near ? `${clip(k)} (did you mean ${near}?)` : clip(k);
    })
    .join(', ');
}

/** Unknown and deprecated query parameters or body fields, against what the route's schema lists. */
export function fieldChecks(fields: Fields, value: unknown, what: 'parameter' | 'field', shown: string, note: (id: FindingId, detail?: string) => void) {
  let extra = unknownKeys(value, fields.known);
  if (extra.length) extra = extra.filter((k) => k !== 'access_token');
  if (extra.length) note(what === 'parameter' ? 'unknown-query-parameter' : 'unknown-body-field', `${describeUnknown(extra, fields.known)} on ${shown}`);
  const old = keysIn(value, fields.deprecated);
  if (old.length) note('deprecated-field', `${old.join(', ')} on ${shown}`);
}
