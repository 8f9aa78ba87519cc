import type { FastifyReply, FastifyRequest, FastifySchema, RouteOptions } from 'fastify';

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
      [`${p}version`]: { type: 'string', description: 'API version like 3.4.0; absent means latest (3.5.0)' },
      'accept-language': { type: 'string', description: 'Content language, default en-US' },
    },
  };
  return ({ schema, url, route }: { schema: FastifySchema; url: string; route?: { config?: unknown } }) => {
    if (!schema || !('tags' in schema) || schema.headers) return { schema, url };
    // Every operation takes the bearer token (prices and scopes depend on it) except the two that
    // issue one: Swagger UI's Authorize then sends it everywhere it matters.
    const issuesTokens = (route?.config as { ignoreBearer?: boolean } | undefined)?.ignoreBearer === true;
    return { schema: { ...schema, headers, ...optionalDefaults(schema.querystring), ...(issuesTokens ? {} : { security: [{ Partner: [] }] }) }, url };
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
export function bearerScheme(headerPrefix: string) {
  return {
    type: 'http' as const,
    scheme: 'bearer',
    description:
      `Get a token from POST /login with {"client_id": "sandbox-client", "client_secret": "sandbox-secret", "grant_type": "client_credentials"} ` +
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
