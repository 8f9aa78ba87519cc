import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import fastJson from 'fast-json-stringify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config.js';
import { keptClock, type Clock, type KeptClock } from './clock.js';
import type { Catalog } from './seed/catalog.js';
import { clientErrorHandler, frameworkErrors, installErrorHandling } from './http/error-handler.js';
import { installHttpLayerAnswers } from './http/http-layer.js';
import { installJsonBodyParser } from './http/json-body.js';
import serviceHeaders from './http/service-headers.js';
import faults, { faultHook } from './http/faults.js';
import applicationLimits from './http/limits.js';
import { lazyValidatorCompiler } from './http/validation.js';
import { requestLogging } from './http/request-logging.js';
import { journal } from './admin/journal.js';
import reportPlugin from './report/index.js';
import { bearerScheme, documentHeaders, examplesOnServerDay, markDeprecatedRoutes, TAG_ORDER } from './http/docs.js';
import catalogRoutes from './catalog/index.js';
import activityBodies from './catalog/activity-bodies.js';
import bookingRoutes from './booking/index.js';
import { voucherViewRoutes } from './booking/vouchers.routes.js';
import scenarioRunner from './booking/scenario-runner.js';
import schedulePlugin, { type ScheduleOptions } from './schedule/index.js';
import orderItems from './booking/order-items.js';
import adminRoutes from './admin/index.js';
import adminDocs from './admin/docs.js';
import storePlugin, { createStore, type Store } from './store/index.js';
import authRoutes, { clientsPlugin } from './auth/index.js';
import webhooksPlugin, { type WebhooksPluginOptions } from './webhooks/index.js';
import scenariosPlugin from './scenarios/index.js';
import { VERSION } from './version.js';
import { syncAllHook, syncApplicationHook } from './http/state-sync.js';
import proxyRoutes from './proxy/routes.js';
import type { UpstreamOptions } from './proxy/upstream.js';
import certificationPlugin from './certification/runs.js';
import { jwksRoute } from './certification/routes.js';

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
  /** Due work's lease and poll on a shared store; tests shorten them. */
  schedule?: ScheduleOptions;
  /**
   * Longest a request may take to arrive, headers and body, before it is answered 408 and its
   * connection closed (slow clients). Default 30000, enforced to within a second; 0 turns it off
   * (Node's own 60 s limit on headers then remains). Tests shorten it.
   */
  requestTimeoutMs?: number;
  /** With config.upstream: how the proxy reaches it (timeouts, proxies); tests shorten and set them. */
  upstream?: UpstreamOptions;
}

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    /** The server clock. Time of an application's requests and work: app.now(application). */
    clock: Clock;
    /** The server clock kept on the store's offset: POST /__admin/clock moves the offset, every instance follows. */
    keptClock: KeptClock;
    /**
     * An application's time: the server clock plus the application's own offset (POST /__admin/clock
     * with `application`); without one, the server clock's.
     */
    now(application?: string): Date;
    catalog: Catalog;
    startedAt: number;
  }
}

/** Builds the whole server without listening: server.ts listens, tests inject. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, clock, catalog } = deps;
  const requestTimeout = deps.requestTimeoutMs ?? 30_000;
  const app = Fastify({
    logger: deps.logger ?? false,
    // Both answered by installHttpLayerAnswers with {code, message} instead (Node's 400 without Host
    // had an empty body, Fastify's 503 while closing no code).
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    bodyLimit: 1024 * 1024,
    // Slow clients (headers or body trickling in) get 408 once requestTimeout has passed since the
    // request began. Node checks for expired requests only every connectionsCheckingInterval (30 s
    // by default, which would make the real bound up to 60 s): checking every second at most keeps
    // it within a second of the timeout. headersTimeout defaults to 60 s and must not exceed it.
    requestTimeout,
    http:
      requestTimeout > 0
        ? {
            requestTimeout,
            headersTimeout: requestTimeout,
            connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(requestTimeout / 4))),
            requireHostHeader: false,
          }
        : { requestTimeout: 0, requireHostHeader: false },
    // Node's parser errors (bad method, raw bytes in the path, bad Content-Length, 431, 408) and the
    // router's (bad percent-encoding) answer {code, message} like every other error.
    clientErrorHandler,
    frameworkErrors,
    routerOptions: {
      // Fastify answers a path parameter over 100 characters 414 before routing. Ids here are UUIDs or
      // integers, and an id that is too long is simply an id that does not exist: with the limit at
      // Node's 16 KB header limit (the request line counts towards it) the route answers its own 404
      // (or 400), echoing at most 100 characters of the id.
      maxParamLength: 16 * 1024,
    },
    ...requestLogging(typeof deps.logger === 'object' && deps.logger !== null ? (deps.logger as { level?: string }).level : undefined),
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('config', config);
  app.decorate('clock', clock);
  app.decorate('now', (application?: string) => {
    const own = application === undefined ? 0 : app.store.tenant(application).clock_offset_ms;
    return own ? new Date(clock.now().getTime() + own) : clock.now();
  });
  app.decorate('catalog', catalog);
  app.decorate('startedAt', Date.now());
  installErrorHandling(app);
  installHttpLayerAnswers(app);
  // Response serializers compile on first use: many routes send prebuilt strings and never need
  // theirs, and compiling them all at start-up cost most of a second.
  app.setValidatorCompiler(lazyValidatorCompiler());
  app.setSerializerCompiler(({ schema }) => {
    let serialize: ((data: unknown) => string) | undefined;
    return (data: unknown) => (serialize ??= fastJson(schema as Parameters<typeof fastJson>[0]))(data);
  });
  installJsonBodyParser(app);
  await app.register(storePlugin, { store: deps.store ?? (await createStore('memory')) });
  app.decorate('keptClock', keptClock(clock, () => app.store.server().clock_offset_ms));
  // A clock moved on another instance sharing the store moves this one's.
  app.store.onServerChange?.(() => app.keptClock.follow());
  // After the store (it closes before it) and before the work it schedules (which closes first).
  await app.register(schedulePlugin, { leaseMs: config.leaseMs, ...deps.schedule });
  await app.register(clientsPlugin);
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
      tags: TAG_ORDER,
      components: { securitySchemes: { Partner: bearerScheme(config.headerPrefix, config.shared) } },
    },
    hideUntagged: true,
    transform: documentHeaders(config.headerPrefix),
  });
  // No branding bar: the page is the partner API's.
  await app.register(swaggerUi, { routePrefix: '/docs', transformSpecification: examplesOnServerDay(() => clock.now()), theme: { css: [{ filename: 'mock-server.css', content: '.swagger-ui .topbar { display: none }' }] } });
  // The control API's own document and Swagger UI at /__admin/docs: before the routes it documents.
  await app.register(adminDocs);
  app.get('/', async () => ({
    name: 'mock-server',
    version: VERSION,
    api: config.basePath,
    docs: '/docs',
    dashboard: '/__admin/ui',
    control: '/__admin',
    control_docs: '/__admin/docs',
    health: '/__admin/health',
  }));

  await app.register(journal, { basePath: config.basePath });
  await app.register(reportPlugin, { basePath: config.basePath, headerPrefix: config.headerPrefix, enabled: config.report !== 'off' });
  await app.register(faults);
  await app.register(certificationPlugin, { keyFile: config.certificateKey });
  await app.register(jwksRoute);
  await app.register(adminRoutes, { prefix: '/__admin' });
  await app.register(async (vouchers) => {
    // The voucher page finds its item in any application.
    const sync = syncAllHook(app.store);
    if (sync) vouchers.addHook('onRequest', sync);
    await vouchers.register(voucherViewRoutes);
  });
  await app.register(
    async (api) => {
      // mock-server proxy: the partner API is the upstream's (src/proxy); the rest stays this server's.
      if (config.upstream) {
        await api.register(proxyRoutes, { ...deps.upstream, upstream: config.upstream, record: config.record });
        return;
      }
      api.addHook('onRoute', markDeprecatedRoutes);
      await api.register(serviceHeaders, {
        prefix: config.headerPrefix,
        currencies: catalog.currencies.map((c) => c.code),
        markets: new Map(catalog.markets.map((m) => [m.slug, m.currency])),
      });
      // Registered before auth, so that /login is limited too; its hooks run from preParsing on, after
      // auth's onRequest has said which application a request is charged to.
      if (config.shared) await api.register(applicationLimits, { perSecond: config.rateLimit, stateRecords: config.stateLimit });
      // Between the headers (which name the application) and auth (whose token check reads its state).
      const sync = syncApplicationHook(app.store);
      if (sync) api.addHook('onRequest', sync);
      await api.register(authRoutes);
      // After auth: a fault never hides the real API's own errors (a missing header, a bad token), and
      // in a shared sandbox it knows whether the request may use the application's faults.
      await api.register(faultHook, { basePath: config.basePath });
      await api.register(activityBodies);
      await api.register(catalogRoutes);
      await api.register(bookingRoutes);
    },
    { prefix: config.basePath === '/' ? '' : config.basePath },
  );
  return app;
}
