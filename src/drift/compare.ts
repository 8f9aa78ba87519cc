/**
 * The shapes of two answers to the same request, the mock's and the upstream's, compared field by
 * field with the mock's document at hand: values differ between two catalogs, shapes should not.
 * A field counts as missing upstream only when the document requires it (an optional field is
 * simply absent in some records), as extra only when the document does not list it; types differ
 * when neither is null (integer and number are one type); an enum value upstream must be one the
 * document allows.
 */
export type DifferenceKind = 'status' | 'missing' | 'extra' | 'type' | 'enum' | 'error-body';

export interface Difference {
  /** As /docs writes it: `GET /activities/{activityUuid}`. */
  operation: string;
  kind: DifferenceKind;
  /** Where in the body, as a JSON pointer with [] for any array item; '' for the answer itself. */
  path: string;
  mock: string;
  upstream: string;
}

type Schema = Record<string, unknown>;

/** Everything the values seen at one place had: their types, their fields (objects), their items (arrays), their strings. */
interface Shape {
  types: Set<string>;
  fields: Map<string, Shape>;
  items: Shape | null;
  strings: Set<string>;
}

const typeOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

function shapeOf(values: unknown[]): Shape {
  const s: Shape = { types: new Set(), fields: new Map(), items: null, strings: new Set() };
  const items: unknown[] = [];
  const fields = new Map<string, unknown[]>();
  for (const v of values.slice(0, 200)) {
    s.types.add(typeOf(v));
    if (typeof v === 'string' && s.strings.size < 50) s.strings.add(v);
    if (Array.isArray(v)) items.push(...v.slice(0, 50));
    else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) fields.set(k, [...(fields.get(k) ?? []), x]);
  }
  for (const [k, xs] of fields) s.fields.set(k, shapeOf(xs));
  if (items.length) s.items = shapeOf(items);
  return s;
}

/** The document's named schemas (`$ref: '#/components/schemas/…'`), for the comparison under way. */
let components: Record<string, Schema> = {};

/** The sub-schemas a value at this place may follow (every branch of a union, references followed). */
function branches(schema: Schema | undefined, depth = 0): Schema[] {
  if (!schema || depth > 20) return [];
  if (typeof schema.$ref === 'string') return branches(components[schema.$ref.split('/').pop() ?? ''], depth + 1);
  const out = [schema];
  for (const k of ['anyOf', 'oneOf', 'allOf']) for (const b of (schema[k] as Schema[] | undefined) ?? []) out.push(...branches(b, depth + 1));
  return out;
}
const property = (schemas: Schema[], name: string) => schemas.map((s) => (s.properties as Record<string, Schema> | undefined)?.[name]).find(Boolean);
const required = (schemas: Schema[], name: string) => schemas.some((s) => ((s.required as string[] | undefined) ?? []).includes(name));
const listed = (schemas: Schema[], name: string) => schemas.some((s) => (s.properties as Record<string, Schema> | undefined)?.[name] !== undefined || s.additionalProperties === true || typeof s.additionalProperties === 'object' || s.patternProperties !== undefined);
const shown = (set: Set<string>) => [...set].filter((t) => t !== 'null').sort().join(' or ') || 'null';

function compareShapes(operation: string, path: string, mock: Shape, up: Shape, schema: Schema | undefined, out: Difference[]): void {
  const norm = (s: Set<string>) => new Set([...s].filter((t) => t !== 'null'));
  const [m, u] = [norm(mock.types), norm(up.types)];
  if (m.size && u.size && ![...u].every((t) => m.has(t))) out.push({ operation, kind: 'type', path, mock: shown(m), upstream: shown(u) });
  const schemas = branches(schema);
  const allowed = schemas.flatMap((s) => (Array.isArray(s.enum) ? s.enum : s.const !== undefined ? [s.const] : []));
  if (allowed.length && schemas.every((s) => Array.isArray(s.enum) || s.const !== undefined || s.anyOf || s.oneOf)) {
    const outside = [...up.strings].filter((v) => !allowed.includes(v));
    if (outside.length) out.push({ operation, kind: 'enum', path, mock: allowed.slice(0, 10).map(String).join(', '), upstream: outside.slice(0, 5).join(', ') });
  }
  if (m.has('object') && u.has('object')) {
    for (const [name, ms] of mock.fields) {
      const us = up.fields.get(name);
      if (us) compareShapes(operation, `${path}/${name}`, ms, us, property(schemas, name), out);
      else if (required(schemas, name) || schemas.length === 0) out.push({ operation, kind: 'missing', path: `${path}/${name}`, mock: shown(ms.types), upstream: 'absent' });
    }
    for (const [name, us] of up.fields) {
      if (!mock.fields.has(name) && !listed(schemas, name)) out.push({ operation, kind: 'extra', path: `${path}/${name}`, mock: 'absent', upstream: shown(us.types) });
    }
  }
  if (mock.items && up.items) compareShapes(operation, `${path}/[]`, mock.items, up.items, schemas.map((s) => s.items as Schema | undefined).find(Boolean), out);
}

/** The mock's and the upstream's answers to one request, with the mock's documented responses of the operation. */
export interface Pair {
  operation: string;
  mock: { status: number; body: unknown };
  upstream: { status: number; body: unknown };
  /** The operation's `responses` in the mock's OpenAPI document. */
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
  /** The document's components.schemas, which responses may refer to. */
  schemas?: Record<string, Schema>;
}

/** Where the upstream's answer departs from the mock's; at most 20 differences per answer. */
export function compare(pair: Pair): Difference[] {
  const { operation, mock, upstream } = pair;
  if (mock.status !== upstream.status) return [{ operation, kind: 'status', path: '', mock: String(mock.status), upstream: String(upstream.status) }];
  const out: Difference[] = [];
  if (mock.status >= 400) {
    const e = (upstream.body ?? {}) as { code?: unknown; message?: unknown };
    const m = (mock.body ?? {}) as { code?: unknown };
    if (typeof e.code !== 'string' || typeof e.message !== 'string') out.push({ operation, kind: 'error-body', path: '', mock: '{code, message} strings', upstream: JSON.stringify(upstream.body ?? null).slice(0, 80) });
    else if (e.code !== m.code) out.push({ operation, kind: 'error-body', path: '/code', mock: String(m.code), upstream: e.code });
    return out;
  }
  if (mock.body === undefined || upstream.body === undefined) return out;
  const schema = pair.responses?.[String(mock.status)]?.content?.['application/json']?.schema;
  components = pair.schemas ?? {};
  compareShapes(operation, '', shapeOf([mock.body]), shapeOf([upstream.body]), schema, out);
  return out.slice(0, 20);
}
