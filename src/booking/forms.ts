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

/**
 * A participant as the API shows it: the vendor's PassengerInfo has date-times where the
 * participant schema takes dates (1815-12-10 is shown as 1815-12-10T00:00:00+00:00).
 */
export function passengerInfo(p: Record<string, unknown>): Record<string, unknown> {
  const out = { ...p };
  for (const k of ['date_of_birth', 'passport_expiry_date']) {
    const v = out[k];
    if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v)) out[k] = `${v}T00:00:00+00:00`;
  }
  return out;
}
