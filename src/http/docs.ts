import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';

async function markDeprecated(_request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  reply.header('Deprecation', 'true');
  return payload;
}

/**
 * Adds the common request headers to every partner route's schema so that Swagger UI shows them.
 * The service-headers hook runs before validation, so their errors keep the real API's codes.
 */
export function documentHeaders(prefix: string) {
  const headers = {
    type: 'object',
    properties: {
      [`${prefix.toLowerCase()}application`]: { type: 'string', description: 'Partner application value; required on every request (400 code 2271 when missing)' },
      [`${prefix.toLowerCase()}currency`]: { type: 'string', description: 'Currency code from /currencies; default USD or the market currency' },
      [`${prefix.toLowerCase()}market`]: { type: 'string', description: 'Market code; default us; unknown gives 400 code -1' },
      [`${prefix.toLowerCase()}version`]: { type: 'string', description: 'API version like 3.4.0; absent means latest (3.5.0)' },
      'accept-language': { type: 'string', description: 'Content language, default en-US' },
    },
  };
  return (route: RouteOptions) => {
    const schema = (route.schema ??= {}) as Record<string, unknown>;
    if (!schema.headers) schema.headers = headers;
    // A route documented as deprecated also says so on the wire, as the real API does.
    if (schema.deprecated === true) {
      const existing = route.onSend ? (Array.isArray(route.onSend) ? route.onSend : [route.onSend]) : [];
      route.onSend = [...existing, markDeprecated];
    }
  };
}
