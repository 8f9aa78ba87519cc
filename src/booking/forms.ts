import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { errors } from '../http/errors.js';
import { Memo } from '../memo.js';

// One validator for the JSON Schemas the cart hands out, so what the schema says is what is checked.
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats.default(ajv, ['email', 'date']);

function describe(e: ErrorObject): string {
  const field = `${e.instancePath.replace(/^\//, '').replace(/\//g, '.')}`;
  const p = e.params as Record<string, unknown>;
  if (p.missingProperty) return `"${field ? `${field}.` : ''}${String(p.missingProperty)}" is required`;
  if (p.allowedValues) return `"${field}" must be one of ${(p.allowedValues as unknown[]).join(', ')}`;
  return `"${field || '(body)'}" ${e.message ?? 'is invalid'}`;
}

// Compiling costs milliseconds and schemas repeat (same activities, same quantities): keep them.
const compiled = new Memo<ValidateFunction>(1000);

/** Validates a value against a form schema; 400 naming every failing field. */
export function validateForm(schema: object, value: unknown, what: string): void {
  const validate = compiled.get(JSON.stringify(schema), () => ajv.compile(schema));
  if (validate(value)) return;
  const messages = [...new Set((validate.errors ?? []).map(describe))];
  throw errors.validation(`${what}: ${messages.join('; ')}`);
}
