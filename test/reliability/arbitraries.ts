import fc from 'fast-check';
import type { Operation, Param, Schema } from './operations.js';

/** Real values by parameter or body-field name (ids of seeded records, carts made in the setup). */
export type Pools = Record<string, readonly string[]>;

const MAX_DEPTH = 4;

/** Any JSON value, small: for schema-less places and for wrong types. */
const anyJson = fc.jsonValue({ maxDepth: 2 });

/** Strings that are odd but not huge: empty, whitespace, unicode, control characters, injections. */
const oddString = fc.oneof(
  fc.constantFrom('', ' ', '\t', 'null', 'undefined', '0', '-1', 'NaN', '1e309', '../../etc/passwd', '<script>x</script>', "' OR 1=1 --", '${jndi:x}', '%', '\u0000', '\ud800', 'ḿöçк 🏛️', 'constructor', '__proto__', 'toString', 'hasOwnProperty'),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
);

function stringArb(schema: Schema): fc.Arbitrary<string> {
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : Math.max(minLength, 24);
  const parts: fc.Arbitrary<string>[] = [];
  if (typeof schema.pattern === 'string') {
    try {
      parts.push(fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= 200));
    } catch {
      // a pattern fast-check cannot read: the plain strings below still apply
    }
  }
  switch (schema.format) {
    case 'date':
      parts.push(fc.date({ min: new Date('2025-01-01'), max: new Date('2027-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)));
      break;
    case 'date-time':
      parts.push(fc.date({ min: new Date('2025-01-01'), max: new Date('2027-12-31'), noInvalidDate: true }).map((d) => d.toISOString()));
      break;
    case 'uuid':
      parts.push(fc.uuid());
      break;
    case 'email':
      parts.push(fc.emailAddress());
      break;
  }
  parts.push(fc.string({ minLength, maxLength: Math.min(maxLength, 64) }));
  return fc.oneof(...parts);
}

/**
 * Values for a JSON schema: mostly valid, sometimes not ("valid-ish"), so that both the validator's
 * refusals and the handlers behind it are reached. `hints` gives real values for fields by name.
 */
export function schemaArb(schema: Schema | undefined, hints: Pools = {}, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > MAX_DEPTH) return anyJson;
  const valid = validArb(schema, hints, depth);
  // Now and then a value breaks the schema (a wrong type or an odd string); less often for a whole
  // body, so that most requests get past validation to the handler.
  return fc.oneof({ arbitrary: valid, weight: depth === 0 ? 19 : 9 }, { arbitrary: fc.oneof(anyJson, oddString), weight: 1 });
}

function validArb(schema: Schema, hints: Pools, depth: number): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.enum) && schema.enum.length) return fc.constantFrom(...(schema.enum as unknown[]));
  if ('const' in schema) return fc.constant(schema.const);
  const alternatives = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(alternatives) && alternatives.length) return fc.oneof(...alternatives.map((s) => validArb(s, hints, depth + 1)));
  const type = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string | undefined];
  if (type.length > 1) return fc.oneof(...type.map((ty) => validArb({ ...schema, type: ty }, hints, depth)));
  const minimum = typeof schema.minimum === 'number' ? schema.minimum : -1000;
  const maximum = typeof schema.maximum === 'number' ? schema.maximum : 100000;
  switch (type[0]) {
    case 'string':
      return stringArb(schema);
    case 'integer':
      return fc.oneof(fc.integer({ min: minimum, max: maximum }), fc.constantFrom(minimum, maximum));
    case 'number':
      return fc.double({ min: minimum, max: maximum, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0;
      const maxItems = Math.min(typeof schema.maxItems === 'number' ? schema.maxItems : 3, minItems + 3);
      return fc.array(schemaArb(schema.items as Schema | undefined, hints, depth + 1), { minLength: minItems, maxLength: maxItems });
    }
    case 'object':
    case undefined: {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      if (type[0] === undefined && !Object.keys(props).length) return anyJson;
      const required = new Set((schema.required ?? []) as string[]);
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, s] of Object.entries(props)) {
        const fromSchema = schemaArb(s, hints, depth + 1);
        const real = hints[name];
        model[name] = real?.length ? fc.oneof({ arbitrary: fc.constantFrom(...real), weight: 3 }, { arbitrary: fromSchema, weight: 1 }) : fromSchema;
      }
      const record = fc.record(model, { requiredKeys: [...required].filter((k) => k in model) });
      if (schema.additionalProperties === false) return record;
      // Extra fields, some with names that mean something to JavaScript.
      const extra = fc.dictionary(fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('toString', 'valueOf', 'hasOwnProperty', 'then')), anyJson, { maxKeys: 2 });
      return fc.tuple(record, extra).map(([r, e]) => ({ ...e, ...r }));
    }
    default:
      return anyJson;
  }
}

/** A parameter's value as it goes into a URL, before encoding. */
export function paramArb(p: Param, pools: Pools): fc.Arbitrary<string> {
  const fromSchema = schemaArb(p.schema).map((v) => (Array.isArray(v) ? v.map(String).join(',') : typeof v === 'string' ? v : JSON.stringify(v) ?? ''));
  const real = pools[p.name];
  if (!real?.length) return fromSchema;
  // The first real value is the one that reaches furthest (the attacker's open cart, a bookable activity).
  return fc.oneof(
    { arbitrary: fc.constant(real[0]!), weight: p.in === 'path' ? 5 : 1 },
    { arbitrary: fc.constantFrom(...real), weight: p.in === 'path' ? 3 : 1 },
    { arbitrary: fromSchema, weight: 1 },
  );
}

export const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'] as const;
export const BAD_PERCENT = ['%', '%z', '%zz', '%E0%A4%A', '%C0%AF', '%FF', '%ED%A0%80', '%F4%90%80%80', '%%32%65', '%uD800', '%0', '%2', '%GG%HH'] as const;
export const CONTENT_TYPES = [
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/vnd.api+json',
  'application/octet-stream',
  'application/json, text/plain',
  ';;;',
  'application/jsonx',
  'APPLICATION/JSON',
] as const;

/**
 * How a generated request breaks the rules; materialised by buildRequest so that a failing
 * case prints as a few fields (the 1 MB string or the 5,000 brackets are built from them).
 */
export type Mutation =
  | { kind: 'none' }
  /** `depth` nested arrays (or objects): an extra body field, in place of a schema field, the whole body, or in the query. */
  | { kind: 'deep'; depth: number; shape: 'arrays' | 'objects'; at: 'extra' | 'field' | 'root' | 'query' }
  /** A string of `size` characters in a body field, the query, a path parameter or a header. */
  | { kind: 'huge'; size: number; char: string; at: 'body' | 'query' | 'param' | 'app-header' | 'header' }
  /** Prototype keys in the body (top level or nested) or the query. */
  | { kind: 'proto'; key: (typeof PROTO_KEYS)[number]; at: 'body' | 'nested' | 'query' | 'query-bracket' | 'param' }
  /** A broken percent-encoding in a path parameter, a static path segment or the query. */
  | { kind: 'badPercent'; seq: string; at: 'param' | 'path' | 'query' }
  /** A path parameter far longer than any id. */
  | { kind: 'longParam'; length: number }
  /** A body sent with another content type, or a broken JSON body. */
  | { kind: 'contentType'; type: string; body: 'json' | 'broken' | 'empty' | 'text' }
  /** Odd values in the common headers. */
  | { kind: 'header'; name: 'currency' | 'market' | 'version' | 'application' | 'accept-language' | 'authorization' | 'duplicate-application'; value: string };

/** Strings that are non-ASCII, empty-looking or otherwise odd, for headers. */
const headerValue = fc.oneof(
  fc.constantFrom('XXX', 'usd ', 'EURO', 'ÄÖÜ', 'café', 'приложение', '应用', '😀', 'x'.repeat(300), '3.x.0', '99999999999999999999999.1.1', '3.4', '../../', '3a4b5', '0.0.0', '-1.-1.-1', 'null', 'undefined', '*', ',', ';q=0', 'en-US;q=NaN', 'zz-ZZ,*;q=2'),
  fc.string({ unit: 'grapheme-ascii', maxLength: 20 }).filter((s) => !/^\s*$/.test(s)),
  fc.string({ unit: 'grapheme', maxLength: 12 }).filter((s) => !/^\s*$/.test(s)),
);

type HugeAt = Extract<Mutation, { kind: 'huge' }>['at'];
/**
 * Node's HTTP parser refuses a request line and headers over 16 KB (431, test/http/client-errors):
 * no longer URL or header reaches the app over a socket. Strings in the query, a path parameter or a
 * header go up to that (their percent-encoding can make them several times longer); bodies, which
 * have no such limit before the app's own, go past 1 MB.
 */
const HTTP_HEAD_LIMIT = 16 * 1024;
function huge(at: HugeAt[]): fc.Arbitrary<Mutation> {
  const inBody = at.every((a) => a === 'body');
  return fc.record({
    kind: fc.constant('huge' as const),
    size: inBody ? fc.oneof(fc.constant(100_000), fc.integer({ min: 100_000, max: 1_100_000 })) : fc.oneof(fc.constant(HTTP_HEAD_LIMIT), fc.integer({ min: 1_000, max: HTTP_HEAD_LIMIT })),
    char: fc.constantFrom('a', 'é', '"', '€', '\\'),
    at: fc.constantFrom(...at),
  });
}

/** The mutations by family: every operation is fuzzed with each of them. */
export const mutationFamilies = {
  none: fc.constant<Mutation>({ kind: 'none' }),
  deep: fc.record({
    kind: fc.constant('deep' as const),
    depth: fc.oneof(fc.constant(5000), fc.integer({ min: 65, max: 20000 })),
    shape: fc.constantFrom('arrays' as const, 'objects' as const),
    at: fc.oneof({ arbitrary: fc.constant('extra' as const), weight: 3 }, { arbitrary: fc.constantFrom('field' as const, 'root' as const, 'query' as const), weight: 3 }),
  }),
  // Huge strings, one family per place, so that every operation gets each of them.
  hugeBody: huge(['body']),
  hugeQuery: huge(['query']),
  hugeParam: huge(['param']),
  hugeHeader: huge(['app-header', 'header']),
  proto: fc.record({ kind: fc.constant('proto' as const), key: fc.constantFrom(...PROTO_KEYS), at: fc.constantFrom('body' as const, 'nested' as const, 'query' as const, 'query-bracket' as const, 'param' as const) }),
  badPercent: fc.record({ kind: fc.constant('badPercent' as const), seq: fc.constantFrom(...BAD_PERCENT), at: fc.constantFrom('param' as const, 'path' as const, 'query' as const) }),
  longParam: fc.record({ kind: fc.constant('longParam' as const), length: fc.oneof(fc.constant(101), fc.integer({ min: 101, max: HTTP_HEAD_LIMIT })) }),
  contentType: fc.record({
    kind: fc.constant('contentType' as const),
    type: fc.constantFrom(...CONTENT_TYPES),
    body: fc.constantFrom('json' as const, 'broken' as const, 'empty' as const, 'text' as const),
  }),
  header: fc.record({
    kind: fc.constant('header' as const),
    name: fc.constantFrom('currency' as const, 'market' as const, 'version' as const, 'application' as const, 'accept-language' as const, 'authorization' as const, 'duplicate-application' as const),
    value: headerValue,
  }),
} satisfies Record<string, fc.Arbitrary<Mutation>>;

export type Family = keyof typeof mutationFamilies;

/** Which credentials the attacker sends: none, its own token, the victim's token, or junk. */
export type Auth = 'none' | 'own' | 'victim' | 'junk';

export interface RequestSpec {
  path: Record<string, string>;
  query: [string, string][];
  /** undefined: no body. */
  body: unknown;
  auth: Auth;
  mutation: Mutation;
}

/** Valid-ish path values, query and body for an operation, plus a mutation of the given family. */
/**
 * `focused`: aim at the handler rather than around it: the first (working) real id for each path
 * parameter, the first (valid) example body, the attacker's own token. For mutations (deep nesting)
 * whose damage is done only once a handler takes the body in.
 */
export function requestArb(op: Operation, mutation: fc.Arbitrary<Mutation>, pools: Pools, examples: readonly unknown[] = [], focused = false): fc.Arbitrary<RequestSpec> {
  const pathParams = op.params.filter((p) => p.in === 'path');
  const queryParams = op.params.filter((p) => p.in === 'query');
  // Path parameters, and required query parameters (GET /login's credentials).
  const pathValue = (p: Param) => (focused && pools[p.name]?.length ? fc.constant(pools[p.name]![0]!) : paramArb(p, pools));
  const path = fc.record(Object.fromEntries(pathParams.map((p) => [p.name, pathValue(p)])));
  const query = fc
    .tuple(
      ...queryParams.map((p) => (p.required ? pathValue(p).map((v) => [[p.name, v] as [string, string]]) : fc.option(paramArb(p, pools), { nil: undefined, freq: 2 }).map((v) => (v === undefined ? [] : [[p.name, v] as [string, string]])))),
    )
    .map((pairs) => pairs.flat())
    // Sometimes parameters the operation does not know, or one twice.
    .chain((pairs) => fc.array(fc.tuple(fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom(...queryParams.map((p) => p.name), 'limit')), oddString), { maxLength: 2 }).map((extra) => [...pairs, ...extra]));
  const schemaBody =
    op.body !== undefined
      ? fc.oneof({ arbitrary: schemaArb(op.body, pools), weight: 9 }, { arbitrary: fc.constant(undefined), weight: 1 })
      : op.method === 'GET' || op.method === 'DELETE'
        ? fc.constant(undefined)
        : fc.option(anyJson, { nil: undefined });
  // Realistic bodies (a lead booker, participants, …) for operations whose schema says little; the first is valid.
  const body = !examples.length
    ? schemaBody
    : focused
      ? fc.constant(examples[0])
      : fc.oneof({ arbitrary: fc.constant(examples[0]), weight: 3 }, { arbitrary: fc.constantFrom(...examples), weight: 2 }, { arbitrary: schemaBody, weight: 1 });
  return fc.record({
    path,
    query,
    body,
    // Mostly its own token (the handlers run), sometimes none, the victim's, or junk (401s).
    auth: focused ? fc.constant<Auth>('own') : fc.constantFrom<Auth>('own', 'none', 'own', 'victim', 'own', 'junk'),
    mutation,
  });
}
