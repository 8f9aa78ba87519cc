import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

/**
 * Fastify's validation with its own ajv options (arrays and scalars coerced from query strings,
 * defaults applied, one error at a time), but each route's validator compiles on its first request:
 * compiling ~120 routes up front cost a third of a second of start-up.
 */
export function lazyValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const ajv = new Ajv({ coerceTypes: 'array', useDefaults: true, removeAdditional: false, addUsedSchema: false, allErrors: false, strict: false });
  addFormats.default(ajv);
  return ({ schema, httpPart }) => {
    if (httpPart === 'params' && onlyPlainStrings(schema)) return alwaysValid;
    let compiled: ValidateFunction | undefined;
    const validate = (data: unknown) => {
      compiled ??= ajv.compile(schema as object);
      const ok = compiled(data);
      validate.errors = compiled.errors;
      return ok;
    };
    validate.errors = null as ValidateFunction['errors'];
    return validate;
  };
}

/**
 * Path parameters always arrive as strings: a params schema of plain strings (no pattern, format or
 * length) can never fail, so it documents the route without being run on every request.
 */
function onlyPlainStrings(schema: unknown): boolean {
  const s = schema as { type?: string; properties?: Record<string, Record<string, unknown>> };
  if (s.type !== 'object' || !s.properties) return false;
  return Object.values(s.properties).every((p) => Object.keys(p).every((k) => k === 'type' || k === 'description') && p.type === 'string');
}

const alwaysValid = Object.assign(() => true, { errors: null });
