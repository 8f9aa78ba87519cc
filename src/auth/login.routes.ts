import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { clip, errors } from '../http/errors.js';
import type { Client } from './clients.js';
import { issueToken, TOKEN_LIFETIME_S } from './tokens.js';

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
});

const digest = (s: string) => createHash('sha256').update(s).digest();

/** POST /login (JSON body) and the deprecated GET /login (query): OAuth 2.0 client credentials. */
export default async function loginRoutes(app: FastifyInstance, opts: { clients: ReadonlyMap<string, Client> }) {
  const { clients } = opts;

  async function login(where: 'body' | 'querystring', creds: Credentials, request: FastifyRequest, reply: FastifyReply) {
    if (creds.grant_type !== 'client_credentials') {
      throw errors.validation(`${where} "grant_type" must be "client_credentials", got "${clip(creds.grant_type)}"`);
    }
    const client = clients.get(creds.client_id);
    if (!client) throw errors.invalidClient(`Unknown client_id "${clip(creds.client_id)}"`);
    if (!timingSafeEqual(digest(client.secret), digest(creds.client_secret))) {
      throw errors.invalidClient(`Wrong client_secret for client_id "${clip(creds.client_id)}"`);
    }
    const { application } = request.service;
    if (client.applications !== '*' && !client.applications.includes(application)) {
      throw errors.invalidClient(`Client "${client.clientId}" may not be used with application "${clip(application)}"`);
    }
    const { token, record } = await issueToken(app.store, app.clock, application, client);
    reply.header('cache-control', 'no-store');
    return {
      access_token: token,
      expires_in: TOKEN_LIFETIME_S,
      token_type: 'bearer',
      scope: record.scopes.length > 0 ? record.scopes.join(' ') : null,
    };
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
