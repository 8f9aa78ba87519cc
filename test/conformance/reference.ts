/**
 * The vendor's own OpenAPI document (an earlier version of the API, kept as test data in ./data with
 * its source named there) as a judge of what the mock answers: every response body is validated
 * against the document's schema for its status, OpenAPI 3.0 `nullable` respected.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { packageRoot } from '../../src/paths.js';

export const REFERENCE = join(packageRoot, 'test', 'conformance', 'data', 'partner-openapi-3.4.0.json');

export interface RefOperation {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  /** Path and query parameter names. */
  pathParams: string[];
  /** Status code -> JSON schema of the body (only those with application/json content). */
  responses: Map<string, object>;
}

type Doc = { paths: Record<string, Record<string, { parameters?: unknown[]; responses?: Record<string, { $ref?: string; content?: Record<string, { schema?: object }> }> }>>; components: Record<string, Record<string, unknown>> };

/** Reads the reference document and compiles a validator per (operation, status). */
export function loadReference() {
  const doc = JSON.parse(readFileSync(REFERENCE, 'utf8')) as Doc;
  // strict: false: the document carries OpenAPI's own keywords (example, xml, discriminator, ...).
  // `nullable` is OpenAPI 3.0's, and ajv knows it.
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  addFormats.default(ajv);
  ajv.addSchema({ ...(openapiNullable(doc) as object), $id: 'ref' });
  const resolveResponse = (r: { $ref?: string; content?: Record<string, { schema?: object }> }) => {
    if (!r.$ref) return r;
    const name = r.$ref.split('/').pop() as string;
    return doc.components.responses?.[name] as typeof r;
  };
  const ops: RefOperation[] = [];
  const validators = new Map<string, ValidateFunction>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [m, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(m)) continue;
      const responses = new Map<string, object>();
      for (const [status, raw] of Object.entries(op.responses ?? {})) {
        const schema = resolveResponse(raw)?.content?.['application/json']?.schema;
        if (schema) responses.set(status, schema);
      }
      ops.push({ method: m.toUpperCase() as RefOperation['method'], path, pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((x) => x[1] as string), responses });
    }
  }
  /** Problems of a body against the document's schema for an operation and status; [] when valid. */
  const check = (op: RefOperation, status: number, body: unknown): ErrorObject[] => {
    const schema = op.responses.get(String(status)) ?? op.responses.get('default');
    if (!schema) return [];
    const key = `${op.method} ${op.path} ${status}`;
    let v = validators.get(key);
    if (!v) {
      v = ajv.compile(rewriteRefs(openapiNullable(schema)));
      validators.set(key, v);
    }
    return v(body) ? [] : [...(v.errors ?? [])];
  };
  return { ops, check };
}

/** `#/components/...` inside an operation's schema points into the document registered as `ref`. */
function rewriteRefs(schema: unknown): object {
  return JSON.parse(JSON.stringify(schema).replace(/"\$ref":"#\//g, '"$ref":"ref#/')) as object;
}

/**
 * OpenAPI 3.0's `nullable` as the generators read it: beside a `$ref` or a composition (no `type`,
 * which ajv refuses) the value may also be null.
 */
function openapiNullable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(openapiNullable);
  if (node === null || typeof node !== 'object') return node;
  const o = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, openapiNullable(v)])) as Record<string, unknown>;
  if ('nullable' in o && o.type === undefined) {
    const { nullable, ...rest } = o;
    return nullable === true ? { anyOf: [rest, { type: 'null' }] } : rest;
  }
  // A nullable enum admits null too, as the generators read it (OpenAPI 3.0.3 asks for null in the list).
  if (o.nullable === true && Array.isArray(o.enum) && !o.enum.includes(null)) o.enum = [...o.enum, null];
  return o;
}
