import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { defaults, type Config } from '../../src/config.js';
import { fixedClock, type Clock } from '../../src/clock.js';
import { createStore, type Store } from '../../src/store/index.js';
import type { WebhooksPluginOptions } from '../../src/webhooks/index.js';
import type { ScheduleOptions } from '../../src/schedule/index.js';
import type { OrderItemSnapshot } from '../../src/webhooks/payload.js';
import { testCatalog } from '../helper.js';

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The sender's port: the same one again means a reused (keep-alive) connection. */
  remotePort: number | undefined;
}

/**
 * What the receiver answers to one request: a status, 'hang' (never answers), or 'trickle': 200 and
 * a 1,000-byte body sent one byte every 100 ms, so that no pause between pieces is long enough for a
 * per-phase timeout; 'stall': 200 and one byte of that body, then nothing.
 */
export type Answer = number | 'hang' | 'trickle' | 'stall';

/** A real webhook receiver on 127.0.0.1 (port 0) that records every request. */
export async function startReceiver(answer: (r: Received, index: number) => Answer = () => 200) {
  const received: Received[] = [];
  const tricklers = new Set<NodeJS.Timeout>();
  /** Connections open now: a sender that gave up on an answer must close its connection. */
  let open = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), remotePort: req.socket.remotePort };
      received.push(r);
      const a = answer(r, received.length - 1);
      if (a === 'hang') return;
      if (a === 'trickle' || a === 'stall') {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '1000' });
        res.write('x');
        if (a === 'stall') return;
        const timer = setInterval(() => res.write('x'), 100);
        tricklers.add(timer);
        res.on('close', () => (clearInterval(timer), tricklers.delete(timer)));
        return;
      }
      res.writeHead(a, { 'content-type': 'text/plain' });
      res.end('ignored body');
    });
  });
  server.on('connection', (socket) => {
    open++;
    socket.on('close', () => open--);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    received,
    port,
    url: `http://127.0.0.1:${port}/hooks`,
    openConnections: () => open,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of tricklers) clearInterval(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port where nothing listens: connections are refused. */
export { deadPort } from '../helper.js';

export const T0 = '2026-01-15T10:00:00.000Z';

/** A snapshot of one order item after a move, as the booking flow will build it. */
export function snapshot(over: { item?: Partial<OrderItemSnapshot['item']>; order?: Partial<OrderItemSnapshot['order']> } = {}): OrderItemSnapshot {
  return {
    order: { id: 1234, uuid: '0b5a4d3e-1c2f-4a6b-9d8e-7f6a5b4c3d2e', created: T0, updated: T0, version: 2, ...over.order },
    item: { uuid: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d', created: T0, updated: T0, version: 1, status: 'OK', ...over.item },
  };
}

export interface WebhookAppOptions {
  config?: Partial<Config>;
  clock?: Clock;
  store?: Store;
  webhooks?: WebhooksPluginOptions;
  schedule?: ScheduleOptions;
}

/** An app like buildTestApp's, with webhook tuning (buildTestApp has no way to pass it). */
export async function buildWebhookApp(opts: WebhookAppOptions = {}): Promise<FastifyInstance> {
  const config: Config = { ...defaults, seed: 1, catalogSize: 20, db: 'memory', ...opts.config };
  const app = await buildApp({
    config,
    clock: opts.clock ?? fixedClock(T0),
    catalog: await testCatalog(config.seed, config.catalogSize, config.fixtures),
    store: opts.store ?? (await createStore('memory')),
    webhooks: { timeoutMs: 500, ...opts.webhooks },
    schedule: opts.schedule,
  });
  await app.ready();
  return app;
}
