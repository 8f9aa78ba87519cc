import type { FastifyReply, FastifyRequest, FastifySchema, RouteOptions } from 'fastify';
import { commonErrors, exampleDay, exampleProduct, operationDocs, type OperationDoc } from './docs-operations.js';
import { ERROR_SCHEMA } from './errors.js';

async function markDeprecated(_request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  reply.header('Deprecation', 'true');
  return payload;
}

/** A route documented as deprecated also says so on the wire (`Deprecation: true`), as the real API does. */
export function markDeprecatedRoutes(route: RouteOptions): void {
  if ((route.schema as { deprecated?: boolean } | undefined)?.deprecated !== true) return;
  const existing = route.onSend ? (Array.isArray(route.onSend) ? route.onSend : [route.onSend]) : [];
  route.onSend = [...existing, markDeprecated];
}

/**
 * A @fastify/swagger transform that shows the common request headers on every documented (tagged)
 * route. They live in the docs only, not in the route schemas: the service-headers hook applies
 * their rules with the real API's codes, and validating them again on each request cost time for nothing.
 */
export function documentHeaders(prefix: string) {
  const p = prefix.toLowerCase();
  const headers = {
    type: 'object',
    required: [`${p}application`],
    properties: {
      [`${p}application`]: { type: 'string', description: 'Partner application value; required on every request (400 code 2271 when missing)', example: 'sandbox-app' },
      [`${p}currency`]: { type: 'string', description: 'Currency code from /currencies; default USD or the market currency' },
      [`${p}market`]: { type: 'string', description: 'Market code; default us; unknown gives 400 code -1' },
      // An example, so that "Try it out" pins the version as a careful client does (the report warns without it).
      [`${p}version`]: { type: 'string', description: 'API version like 3.4.0; absent means latest (3.5.0)', example: '3.5.0' },
      'accept-language': { type: 'string', description: 'Content language, default en-US' },
    },
  };
  // Built with the document (once, on the first request for it); examplesOnServerDay moves its day.
  let table: Record<string, OperationDoc> | undefined;
  return ({ schema, url, route }: { schema: FastifySchema; url: string; route?: { config?: unknown; method?: string | string[] } }) => {
    if (!schema || !('tags' in schema) || schema.headers) return { schema, url };
    // Every operation takes the bearer token (prices and scopes depend on it) except the two that
    // issue one: Swagger UI's Authorize then sends it everywhere it matters.
    const issuesTokens = (route?.config as { ignoreBearer?: boolean } | undefined)?.ignoreBearer === true;
    table ??= operationDocs();
    const method = [route?.method ?? 'GET'].flat()[0] ?? 'GET';
    const op = findOperation(table, method === 'HEAD' ? 'GET' : method, url);
    return {
      schema: {
        ...schema,
        headers,
        ...optionalDefaults(schema.querystring),
        ...(issuesTokens ? {} : { security: [{ Partner: [] }] }),
        ...(op ? documentOperation(schema, url, op, !issuesTokens) : {}),
      },
      url,
    };
  };
}

/**
 * Swagger UI's transformSpecification: the document is built once, but the example day (and the
 * example product on it) follows the server clock on every request for it, so that "Try it out"
 * still books after days of uptime or once the clock was moved.
 */
export function examplesOnServerDay(now: () => Date) {
  type Op = { parameters?: Array<{ in?: string; name?: string; example?: unknown }>; requestBody?: { content?: Record<string, { example?: unknown }> } };
  return (spec: Record<string, unknown>) => {
    const paths = (spec.paths ?? {}) as Record<string, Record<string, Op>>;
    const day = exampleDay(now());
    const dayParam = paths['/activities/{activityUuid}/dates/{day}']?.get?.parameters?.find((p) => p.in === 'path' && p.name === 'day');
    if (dayParam) dayParam.example = day;
    const items = paths['/carts/{cartUuid}/items']?.post?.requestBody?.content?.['application/json'];
    if (Array.isArray(items?.example)) items.example = items.example.map((x: Record<string, unknown>) => ({ ...x, product_identifier: exampleProduct(day) }));
    return spec;
  };
}

/**
 * The partner document's groups in the order of a booking, the deprecated and removed ones last.
 * Swagger UI lists tags in this order.
 */
export const TAG_ORDER = [
  'authentication', 'activities', 'dates', 'activity info', 'pickups', 'carts', 'customer info', 'orders', 'payments',
  'cancellations', 'vouchers', 'webhooks', 'categories', 'cities', 'countries', 'venues', 'lists', 'additional searches',
  'reviews', 'currencies', 'metadata', 'verticals (deprecated)', 'events (removed)',
].map((name) => ({ name }));

/** How Swagger UI's Authorize dialog tells a person to get a token. */
export function bearerScheme(headerPrefix: string, shared = false) {
  const client = shared ? `"<your client_id>", "client_secret": "<your client_secret>"` : `"sandbox-client", "client_secret": "sandbox-secret"`;
  return {
    type: 'http' as const,
    scheme: 'bearer',
    description:
      `Get a token from POST /login with {"client_id": ${client}, "grant_type": "client_credentials"} ` +
      (shared ? "(this sandbox is shared: its operator registers a client for you; every request that touches your application's state needs the token) " : '') +
      `(and the ${headerPrefix}Application header), then paste its access_token here. Tokens live one hour on the server clock.`,
  };
}

/**
 * A query parameter with a default is optional to the client, but a TypeBox property with a default
 * (so that the handler always sees a value) is required in its schema, and the document would tell
 * generated clients to send it. The document lists it as optional; validation is unchanged.
 */
function optionalDefaults(querystring: unknown): { querystring?: unknown } {
  const q = querystring as { properties?: Record<string, { default?: unknown }>; required?: string[] } | undefined;
  if (!q?.properties || !q.required) return {};
  const required = q.required.filter((name) => q.properties?.[name]?.default === undefined);
  return { querystring: { ...q, required } };
}

/**
 * The table entry of a route: its url (as the route has it, base path included, :params) is tried
 * whole, then without its leading segments, so the table need not know the configured base path.
 */
export function findOperation(table: Record<string, OperationDoc>, method: string, url: string): OperationDoc | undefined {
  const segments = url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').split('/').filter(Boolean);
  for (let i = 0; i < segments.length; i++) {
    const op = table[`${method} /${segments.slice(i).join('/')}`];
    if (op) return op;
  }
  return undefined;
}

type Props = Record<string, Record<string, unknown>>;

/** A copy of an object schema whose named properties carry an example (Swagger UI's "Try it out" value). */
function withExamples(objectSchema: unknown, examples: Record<string, unknown> | undefined, fallbackNames: string[] = []): unknown {
  if (!examples) return objectSchema;
  const base = (objectSchema ?? { type: 'object', properties: Object.fromEntries(fallbackNames.map((n) => [n, { type: 'string' }])), required: fallbackNames }) as { properties?: Props };
  if (!base.properties) return objectSchema;
  const properties: Props = { ...base.properties };
  for (const [name, value] of Object.entries(examples)) {
    const prop = properties[name];
    if (prop) properties[name] = { ...prop, examples: [value] };
  }
  return { ...base, properties };
}

/**
 * The document's view of one operation: its description, its error answers ({code, message}), a
 * success description where the route has no schema for it, and the examples. The route's own
 * validation and serialization never see any of this (the transform only feeds the document).
 */
function documentOperation(schema: FastifySchema, url: string, op: OperationDoc, usesBearer: boolean): Partial<FastifySchema> & Record<string, unknown> {
  const s = schema as FastifySchema & { response?: Record<string, unknown>; params?: unknown; querystring?: unknown; body?: unknown };
  const response: Record<string, unknown> = { ...(s.response ?? {}) };
  const success = op.success ?? { status: 200, description: 'Success' };
  const documented = Object.keys(response).filter((status) => /^2/.test(status));
  // No body schema claimed where the route has none (a generated client would hold the answer to it); 204 has no body.
  if (!documented.length) response[String(success.status)] = success.status === 204 ? { type: 'null', description: success.description } : { description: success.description };
  for (const status of documented) {
    const r = response[status] as { description?: string };
    if (!r.description) response[status] = { ...r, description: success.description };
  }
  for (const [status, description] of Object.entries({ ...commonErrors(usesBearer), ...op.errors })) {
    if (response[status] === undefined) response[status] = { ...ERROR_SCHEMA, description };
  }
  const out: Record<string, unknown> = { description: op.description, response };
  if (op.params) out.params = withExamples(s.params, op.params, [...url.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1] as string));
  if (op.query && s.querystring) out.querystring = withExamples((optionalDefaults(s.querystring).querystring ?? s.querystring), op.query);
  if (op.body !== undefined) out.body = s.body ? { ...(s.body as object), examples: [op.body] } : { type: 'object', description: 'optional: may be empty', examples: [op.body] };
  return out;
}
