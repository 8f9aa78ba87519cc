import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * Where an upstream answer departs from the mock's own document (the route schemas /docs/json is
 * built from): a type, a required field, an enum, a field the document does not list, a status it
 * does not list. Object schemas that list their properties are checked closed (a copy with
 * `additionalProperties: false`), so an extra field shows; allOf members stay open, since each
 * lists only part of the object.
 */

type Schema = Record<string, unknown>;
type Responses = Record<string, Schema | undefined>;

const ajv = new Ajv({ allErrors: true, verbose: true, strict: false, addUsedSchema: false, validateFormats: true });
addFormats.default(ajv);
const validators = new WeakMap<object, ValidateFunction | null>();

/** At most this many departures are told per answer: the first few say what changed. */
export const MAX_PER_ANSWER = 5;

function closed(schema: unknown, open = false): unknown {
  if (Array.isArray(schema)) return schema.map((s) => closed(s, open));
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema as Schema)) {
    if (k === 'allOf') out[k] = closed(v, true);
    else if (k === 'properties' && v && typeof v === 'object') out[k] = Object.fromEntries(Object.entries(v as Schema).map(([name, s]) => [name, closed(s)]));
    else if (k === 'examples' || k === 'example' || k === 'default') out[k] = v;
    else out[k] = closed(v);
  }
  if (!open && out.properties && out.additionalProperties === undefined && out.patternProperties === undefined) out.additionalProperties = false;
  return out;
}

/** The JSON schema of a documented answer: plain, or the application/json one of `content`. */
function jsonSchema(documented: Schema): Schema | null {
  const content = documented.content as Record<string, { schema?: Schema }> | undefined;
  if (content) return content['application/json']?.schema ?? null;
  const shaped = ['type', 'properties', 'items', 'anyOf', 'oneOf', 'allOf', '$ref', 'enum'].some((k) => k in documented);
  return shaped ? documented : null;
}

function validatorFor(documented: Schema): ValidateFunction | null {
  let v = validators.get(documented);
  if (v === undefined) {
    const schema = jsonSchema(documented);
    try {
      v = schema ? ajv.compile(closed(schema) as Schema) : null;
    } catch {
      v = null;
    }
    validators.set(documented, v);
  }
  return v;
}

const sample = (value: unknown) => {
  const s = JSON.stringify(value) ?? String(value);
  return s.length > 60 ? `${s.slice(0, 60)}…` : s;
};

function describe(e: ErrorObject): string {
  const at = e.instancePath || '/';
  const p = e.params as Record<string, unknown>;
  if (e.keyword === 'additionalProperty' || p.additionalProperty !== undefined) {
    const name = String(p.additionalProperty);
    const value = (e.data as Record<string, unknown> | undefined)?.[name];
    return `${at === '/' ? '' : at}/${name} is not in the document (got ${sample(value)})`;
  }
  if (e.keyword === 'required') return `${at === '/' ? '' : at}/${String(p.missingProperty)} is missing (the document requires it)`;
  return `${at} ${e.message ?? 'is invalid'} (got ${sample(e.data)})`;
}

/**
 * The departures of one answer from the document, at most MAX_PER_ANSWER, each a line such as
 * `/retail_price/value must be number (got "12.00")`; empty when it fits.
 */
export function departures(responses: Responses | undefined, status: number, body: unknown): string[] {
  const documented = responses?.[String(status)] ?? responses?.[`${String(status).charAt(0)}xx`] ?? responses?.default;
  if (!documented) return [`status ${status} is not in the document (body ${sample(body)})`];
  const validate = validatorFor(documented);
  if (!validate || validate(body)) return [];
  // A union's own error says it; the errors of each of its branches would only repeat it.
  const errors = (validate.errors ?? []).filter((e) => !/\/(anyOf|oneOf)\/\d+\//.test(e.schemaPath));
  return [...new Set(errors.map(describe))].slice(0, MAX_PER_ANSWER);
}
