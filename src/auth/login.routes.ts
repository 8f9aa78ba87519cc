import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { clip, errors } from '../http/errors.js';
import { ClientRegistry } from './registry.js';
import { hashToken, issueToken, TOKEN_LIFETIME_S } from './tokens.js';

const CredentialsSchema = Type.Object({
  client_id: Type.String({ minLength: 1, description: 'issued with the sandbox credentials, e.g. sandbox-client' }),
  client_secret: Type.String({ minLength: 1, description: "the client's secret, e.g. sandbox-secret" }),
  grant_type: Type.String({ minLength: 1, description: 'always client_credentials' }),
});
type Credentials = Static<typeof CredentialsSchema>;

const TokenSchema = Type.Object({
  access_token: Type.String({ description: 'send as Authorization: Bearer <access_token>' }),
  expires_in: Type.Integer({ description: 'seconds until the token expires' }),
  token_type: Type.String({ description: 'always bearer' }),
  scope: Type.Union([Type.String(), Type.Null()], { description: 'granted scopes, space-separated' }),
  refresh_token: Type.Optional(Type.String({ description: 'POST /refresh only: the new access token, which also serves as the next refresh token' })),
});

const RefreshSchema = Type.Object({
  client_id: Type.Optional(Type.String({ minLength: 1 })),
  client_secret: Type.Optional(Type.String({ minLength: 1 })),
  grant_type: Type.Optional(Type.String({ minLength: 1, description: 'refresh_token, or client_credentials' })),
  refresh_token: Type.Optional(Type.String({ minLength: 1, description: 'an access token this application was given (it refreshes until a day after it expired)' })),
});
type Refresh = Static<typeof RefreshSchema>;

/** The refresh fields of an optional JSON body; 400 for anything but an object of strings. */
function bodyFields(body: unknown): Refresh {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw errors.validation('body must be a JSON object (or absent: the fields go in the query)');
  const out: Record<string, string> = {};
  for (const k of ['client_id', 'client_secret', 'grant_type', 'refresh_token'] as const) {
    const v = (body as Record<string, unknown>)[k];
    if (v === undefined) continue;
    if (typeof v !== 'string' || v === '') throw errors.validation(`body "${k}" must be a non-empty string`);
    out[k] = v;
  }
  return out;
}

/** POST /login (JSON body) and the deprecated GET /login (query): OAuth 2.0 client credentials. */
export default async function loginRoutes(app: FastifyInstance) {
  const clients = app.partners;

  async function login(where: 'body' | 'querystring', creds: Credentials, request: FastifyRequest, reply: FastifyReply) {
    if (creds.grant_type !== 'client_credentials') {
      throw errors.validation(`${where} "grant_type" must be "client_credentials", got "${clip(creds.grant_type)}"`);
    }
    const client = clients.find(creds.client_id);
    if (!client) throw errors.invalidClient(`Unknown client_id "${clip(creds.client_id)}"${clients.shared ? ": this sandbox is shared, and its public test clients are off: log in with the client_id and client_secret the sandbox's operator registered for you" : ''}`);
    if (!ClientRegistry.secretMatches(client, creds.client_secret)) {
      throw errors.invalidClient(`Wrong client_secret for client_id "${clip(creds.client_id)}"`);
    }
    const { application } = request.service;
    if (client.applications !== '*' && !client.applications.includes(application)) {
      throw errors.invalidClient(`Client "${client.clientId}" may not be used with application "${clip(application)}"`);
    }
    const { token, record } = await issueToken(app.store, app.now(application), application, client);
    reply.header('cache-control', 'no-store');
    return {
      access_token: token,
      expires_in: TOKEN_LIFETIME_S,
      token_type: 'bearer',
      scope: record.scopes.length > 0 ? record.scopes.join(' ') : null,
    };
  }

  /**
   * POST /refresh, as the reference has it (fields in the query; a JSON body is read too). The mock
   * issues no separate refresh tokens: an access token refreshes itself, and the answer's
   * refresh_token is the new access token.
   */
  async function refresh(fields: Refresh, request: FastifyRequest, reply: FastifyReply) {
    const { grant_type, refresh_token } = fields;
    if (grant_type === 'client_credentials') {
      return login('querystring', { client_id: fields.client_id ?? '', client_secret: fields.client_secret ?? '', grant_type }, request, reply);
    }
    if (grant_type !== 'refresh_token') {
      throw errors.validation(`querystring "grant_type" must be "refresh_token" or "client_credentials", got ${grant_type === undefined ? 'none' : `"${clip(grant_type)}"`}`);
    }
    if (!refresh_token) throw errors.validation('querystring "refresh_token" is required: an access token of this application');
    const { application } = request.service;
    const record = app.store.tenant(application).tokens[hashToken(refresh_token)];
    if (!record) throw errors.invalidClient(`Unknown refresh_token for application "${clip(application)}": call POST /login`);
    const client = clients.find(record.clientId);
    if (!client || (fields.client_id !== undefined && fields.client_id !== record.clientId)) {
      throw errors.invalidClient('The refresh_token was not issued to this client_id: call POST /login');
    }
    const { token, record: fresh } = await issueToken(app.store, app.now(application), application, client);
    reply.header('cache-control', 'no-store');
    return { access_token: token, refresh_token: token, expires_in: TOKEN_LIFETIME_S, token_type: 'bearer', scope: fresh.scopes.length > 0 ? fresh.scopes.join(' ') : null };
  }

  const common = {
    tags: ['authentication'],
    response: { 200: TokenSchema },
  };
  app.post<{ Body: Credentials }>(
    '/login',
    {
      config: { ignoreBearer: true },
      schema: { ...common, summary: 'Get an access token (client credentials)', body: CredentialsSchema },
    },
    (request, reply) => login('body', request.body, request, reply),
  );
  app.post<{ Querystring: Refresh; Body: unknown }>(
    '/refresh',
    {
      config: { ignoreBearer: true },
      // The reference takes the fields in the query; a JSON body with the same fields is read too
      // (checked by hand: a body schema would refuse the usual request, which has none).
      schema: { ...common, summary: 'A fresh access token for one this application holds (grant_type refresh_token)', querystring: RefreshSchema },
    },
    (request, reply) => refresh({ ...bodyFields(request.body), ...request.query }, request, reply),
  );
  app.get<{ Querystring: Credentials }>(
    '/login',
    {
      config: { ignoreBearer: true },
      schema: {
        ...common,
        summary: 'Get an access token with query parameters (deprecated: use POST /login)',
        deprecated: true,
        querystring: CredentialsSchema,
      },
    },
    (request, reply) => {
      reply.header('deprecation', 'true');
      return login('querystring', request.query, request, reply);
    },
  );
}
