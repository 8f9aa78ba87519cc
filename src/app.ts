import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import fastJson from 'fast-json-stringify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config.js';
import type { Clock } from './clock.js';
import type { Catalog } from './seed/catalog.js';
import { installErrorHandling } from './http/error-handler.js';
import serviceHeaders from './http/service-headers.js';
import faults, { faultHook } from './http/faults.js';
import { lazyValidatorCompiler } from './http/validation.js';
import { requestLogging } from './http/request-logging.js';
import { journal } from './admin/journal.js';
import { documentHeaders, markDeprecatedRoutes } from './http/docs.js';
import catalogRoutes from './catalog/index.js';
import activityBodies from './catalog/activity-bodies.js';
import bookingRoutes from './booking/index.js';
import { voucherViewRoutes } from './booking/vouchers.routes.js';
import scenarioRunner from './booking/scenario-runner.js';
import orderItems from './booking/order-items.js';
import adminRoutes from './admin/index.js';
import storePlugin, { createStore, type Store } from './store/index.js';
import authRoutes from './auth/index.js';
import webhooksPlugin, { type WebhooksPluginOptions } from './webhooks/index.js';
import scenariosPlugin from './scenarios/index.js';
import { VERSION } from './version.js';

/** Everything the app needs from outside; tests pass a fixed clock and a small catalog. */
export interface AppDeps {
  config: Config;
  clock: Clock;
  catalog: Catalog;
  /** Mutable state (createStore(config.db)); a memory store when absent. Closed with the app. */
  store?: Store;
  logger?: FastifyServerOptions['logger'];
  /** Webhook tuning without a flag (retry schedule, timeout, wall clock); tests shorten them. */
  webhooks?: WebhooksPluginOptions;
}

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    clock: Clock;
    catalog: Catalog;
    startedAt: number;
  }
}

/** Builds the whole server without listening: server.ts listens, tests inject. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, clock, catalog } = deps;
  const app = Fastify({
    logger: deps.logger ?? false,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    bodyLimit: 1024 * 1024,
    ...requestLogging(typeof deps.logger === 'object' && deps.logger !== null ? (deps.logger as { level?: string }).level : undefined),
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('config', config);
  app.decorate('clock', clock);
  app.decorate('catalog', catalog);
  app.decorate('startedAt', Date.now());
  installErrorHandling(app);
  // Response serializers compile on first use: many routes send prebuilt strings and never need
  // theirs, and compiling them all at start-up cost most of a second.
  app.setValidatorCompiler(lazyValidatorCompiler());
  app.setSerializerCompiler(({ schema }) => {
    let serialize: ((data: unknown) => string) | undefined;
    return (data: unknown) => (serialize ??= fastJson(schema as Parameters<typeof fastJson>[0]))(data);
  });
  // Many clients POST with Content-Type application/json and no body (POST /carts): an empty body
  // means no body here, not a 400; anything else goes through Fastify's own (prototype-safe) parser.
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (typeof body === 'string' && body.trim() === '') return done(null, undefined);
    json(request, body as string, done);
  });
  await app.register(storePlugin, { store: deps.store ?? (await createStore('memory')) });
  await app.register(orderItems);
  await app.register(scenariosPlugin);
  await app.register(webhooksPlugin, deps.webhooks ?? {});
  await app.register(scenarioRunner);

  await app.register(swagger, {
    openapi: {
      info: {
        title: 'Partner Activity Booking API (mock-server)',
        version: '3.5.0',
        description:
          `Served by mock-server ${VERSION}. Every request needs the ${config.headerPrefix}Application header.`,
      },
      servers: [{ url: config.basePath }],
      components: { securitySchemes: { Partner: { type: 'http', scheme: 'bearer' } } },
    },
    hideUntagged: true,
    transform: documentHeaders(config.headerPrefix),
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  await app.register(journal, { basePath: config.basePath });
  await app.register(faults);
  await app.register(adminRoutes, { prefix: '/__admin' });
  await app.register(voucherViewRoutes);
  await app.register(
    async (api) => {
      api.addHook('onRoute', markDeprecatedRoutes);
      await api.register(serviceHeaders, {
        prefix: config.headerPrefix,
        currencies: catalog.currencies.map((c) => c.code),
        markets: new Map(catalog.markets.map((m) => [m.slug, m.currency])),
      });
      await api.register(faultHook, { basePath: config.basePath });
      await api.register(authRoutes);
      await api.register(activityBodies);
      await api.register(catalogRoutes);
      await api.register(bookingRoutes);
    },
    { prefix: config.basePath === '/' ? '' : config.basePath },
  );
  return app;
}
