import type { FastifyInstance } from 'fastify';

/** A JSON schema as the OpenAPI document (or a route's TypeBox schema) carries it. */
export type Schema = Record<string, unknown>;

export interface Param {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: Schema;
}

/**
 * One operation to fuzz. `path` is the full URL template with `{name}` placeholders, e.g.
 * /api/v3/carts/{cartUuid}/items; `body` is the JSON schema of the request body, when it has one.
 */
export interface Operation {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  params: Param[];
  body?: Schema;
  /** Partner API (tenant-scoped), the control plane, or a public route outside both. */
  kind: 'partner' | 'admin' | 'public';
  /**
   * Control-plane operations that act on every application by design (reset, clock, faults, moving
   * any order item, …). They cannot keep other applications' data unchanged, so the isolation
   * property is not asserted for them; the server answers and error shapes still are.
   */
  global?: boolean;
}

export const BASE = '/api/v3';

interface OpenApiParameter {
  in: string;
  name: string;
  required?: boolean;
  schema?: Schema;
}
interface OpenApiOperation {
  parameters?: OpenApiParameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, Schema> };
  servers?: { url: string }[];
}

/** Replaces `$ref: #/components/schemas/x` by the schema it names, recursively. */
export function deref(doc: OpenApiDocument, schema: unknown, depth = 0): unknown {
  if (depth > 20 || schema === null || typeof schema !== 'object') return schema;
  if (Array.isArray(schema)) return schema.map((s) => deref(doc, s, depth + 1));
  const ref = (schema as { $ref?: unknown }).$ref;
  if (typeof ref === 'string') {
    const name = ref.replace('#/components/schemas/', '');
    return deref(doc, doc.components?.schemas?.[name] ?? {}, depth + 1);
  }
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, deref(doc, v, depth + 1)]));
}

/** Every operation of the partner API as the server's own OpenAPI document lists it. */
export async function partnerOperations(app: FastifyInstance): Promise<Operation[]> {
  const res = await app.inject({ method: 'GET', url: '/docs/json' });
  if (res.statusCode !== 200) throw new Error(`GET /docs/json answered ${res.statusCode}`);
  const doc = res.json() as OpenApiDocument;
  const base = doc.servers?.[0]?.url ?? BASE;
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const m = method.toUpperCase();
      if (!['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(m)) continue;
      const params: Param[] = (op.parameters ?? [])
        .filter((p) => p.in === 'path' || p.in === 'query')
        .map((p) => ({ name: p.name, in: p.in as 'path' | 'query', required: p.required ?? false, schema: (deref(doc, p.schema ?? {}) as Schema) ?? {} }));
      const bodySchema = op.requestBody?.content?.['application/json']?.schema;
      ops.push({
        method: m as Operation['method'],
        path: `${base}${path}`,
        params,
        ...(bodySchema ? { body: deref(doc, bodySchema) as Schema } : {}),
        kind: 'partner',
      });
    }
  }
  return ops;
}

const str = (extra: Schema = {}): Schema => ({ type: 'string', ...extra });
const pathParam = (name: string, schema: Schema = str()): Param => ({ name, in: 'path', required: true, schema });
const queryParam = (name: string, schema: Schema = str()): Param => ({ name, in: 'query', required: false, schema });

/**
 * The control API (src/admin/, src/booking/scenario-runner.ts) and the voucher view route: hidden
 * from the document (untagged), so listed here from their sources with the schemas they declare.
 */
export const hiddenOperations: Operation[] = [
  { method: 'GET', path: '/__admin/health', params: [], kind: 'admin' },
  {
    method: 'POST',
    path: '/__admin/clock',
    params: [],
    body: { type: 'object', additionalProperties: false, properties: { advance: str({ enum: ['PT2H', 'P1D', '-PT30M', 'PT0S'] }), set: str({ enum: ['2026-03-01T09:00:00Z', '2026-01-20T10:00:00+01:00'] }) } },
    kind: 'admin',
    global: true,
  },
  {
    method: 'POST',
    path: '/__admin/reset',
    params: [],
    body: { anyOf: [{ type: 'object', additionalProperties: false, properties: { application: str({ minLength: 1 }) } }, { type: 'null' }] },
    kind: 'admin',
    global: true,
  },
  { method: 'GET', path: '/__admin/requests', params: [queryParam('application'), queryParam('limit', { type: 'integer', minimum: 1, maximum: 1000 })], kind: 'admin' },
  { method: 'DELETE', path: '/__admin/requests', params: [queryParam('application')], kind: 'admin', global: true },
  { method: 'GET', path: '/__admin/webhooks/deliveries', params: [queryParam('order_item_uuid', str({ minLength: 1 })), queryParam('application', str({ minLength: 1 }))], kind: 'admin' },
  {
    method: 'POST',
    path: '/__admin/webhooks/deliveries/{id}/redeliver',
    params: [pathParam('id', str({ minLength: 1, maxLength: 100 }))],
    kind: 'admin',
    global: true,
  },
  {
    method: 'PUT',
    path: '/__admin/webhooks/config',
    params: [],
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['url'],
      properties: {
        url: { anyOf: [str({ enum: ['http://127.0.0.1:9/hook', 'https://user:pw@example.invalid/x'] }), { type: 'null' }] },
        secret: { anyOf: [str({ minLength: 1 }), { type: 'null' }] },
        application: str({ minLength: 1 }),
      },
    },
    kind: 'admin',
    global: true,
  },
  { method: 'GET', path: '/__admin/webhooks/config', params: [], kind: 'admin' },
  { method: 'GET', path: '/__admin/scenarios', params: [], kind: 'admin' },
  {
    method: 'POST',
    path: '/__admin/scenarios/{name}/run',
    params: [pathParam('name')],
    body: { type: 'object', properties: { order_item_uuid: str(), order_uuid: str() } },
    kind: 'admin',
    global: true,
  },
  {
    method: 'POST',
    path: '/__admin/faults',
    params: [],
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['method', 'path', 'status'],
      properties: {
        method: str({ enum: ['GET', 'POST', '*', 'BREW'] }),
        path: str({ minLength: 1 }),
        status: { type: 'integer' },
        times: { type: 'integer', minimum: 1, maximum: 100000 },
        delay_ms: { type: 'integer', minimum: 0, maximum: 50 },
      },
    },
    kind: 'admin',
    global: true,
  },
  { method: 'GET', path: '/__admin/faults', params: [], kind: 'admin' },
  { method: 'DELETE', path: '/__admin/faults', params: [], kind: 'admin', global: true },
  { method: 'GET', path: '/__admin/orders', params: [queryParam('application')], kind: 'admin' },
  {
    method: 'POST',
    path: '/__admin/order-items/{uuid}/status',
    params: [pathParam('uuid'), queryParam('application')],
    body: { type: 'object', required: ['status'], properties: { status: str({ enum: ['PENDING', 'OK', 'KO', 'CANCELLED', 'REFUNDED', 'BOGUS'] }) } },
    kind: 'admin',
    global: true,
  },
  { method: 'GET', path: '/voucher/view/{itemUuid}', params: [pathParam('itemUuid')], kind: 'public' },
];

/** Route templates of the operations, for a check that none of the server's routes was missed. */
export function templateOf(op: Operation): string {
  return `${op.method} ${op.path.replace(/\{([^}]+)\}/g, ':$1')}`;
}
