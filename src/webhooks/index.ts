import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { WebhookDispatcher, type DispatcherOptions } from './dispatcher.js';

export { WebhookDispatcher, type ReceiverSource, type WebhookTarget, type ReceiverGate, type DispatcherOptions } from './dispatcher.js';
export type { Delivery, DeliveryAttempt, DeliveryState } from './delivery.js';
export { DEFAULT_RETRY_SCHEDULE } from './delivery.js';
export type { OrderItemSnapshot, UpdateOrderItemPayload } from './payload.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** "Update order item" webhooks: record()/send() from status moves, the delivery log, redeliver. */
    webhooks: WebhookDispatcher;
  }
}

/** Tuning that has no flag (tests shorten the timeout, the deadline and the schedule, inject a wall clock). */
export type WebhooksPluginOptions = Pick<DispatcherOptions, 'schedule' | 'timeoutMs' | 'deadlineMs' | 'wallClock' | 'concurrency' | 'perApplication'>;

async function webhooksPlugin(app: FastifyInstance, opts: WebhooksPluginOptions) {
  const dispatcher = new WebhookDispatcher({
    ...opts,
    store: app.store,
    scheduler: app.scheduler,
    clock: app.clock,
    now: (application) => app.now(application),
    headerPrefix: app.config.headerPrefix,
    seed: app.config.seed,
    flags: { url: app.config.webhookUrl, secret: app.config.webhookSecret },
    guardPartners: app.config.shared && !app.config.allowPrivateReceivers,
    logger: app.log,
  });
  app.decorate('webhooks', dispatcher);
  // Pending deliveries of an earlier run resume once the app is ready.
  app.addHook('onReady', async () => {
    await dispatcher.applyFlags();
    dispatcher.start();
  });
  app.addHook('onClose', async () => dispatcher.close());
}

export default fp(webhooksPlugin, { name: 'webhooks', dependencies: ['store', 'schedule'], fastify: '5.x' });
