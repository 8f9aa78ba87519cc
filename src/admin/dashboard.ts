import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sseModule, { type SSEPluginOptions } from '@fastify/sse';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply } from 'fastify';
import { packageRoot } from '../paths.js';
import { liveTopics, type Heard } from './live.js';

// The package's module.exports is the plugin wrapped by fastify-plugin (so reply.sse reaches our routes);
// its types describe the default export as the namespace under NodeNext.
const sse = sseModule as unknown as FastifyPluginAsync<SSEPluginOptions>;

/**
 * What the dashboard shows changes when one of these does; compared a few times a second while
 * someone watches. With other instances on the same database, what they announce counts too.
 */
function fingerprint(app: FastifyInstance, heard: Heard) {
  return {
    requests: app.journal.latest() + heard.requests,
    // Orders, items, deliveries and their attempts, webhook receivers, the clock's offset: all are store writes.
    state: app.store.stats.writes + heard.state,
    faults: JSON.stringify(app.faults.list()),
  };
}
type Topic = keyof ReturnType<typeof fingerprint>;

/** How often the change watcher looks, while at least one dashboard is open. */
const WATCH_MS = 250;

/**
 * GET /__admin/ui: the dashboard (static files from dashboard/ and Preact with htm from
 * node_modules, served by @fastify/static), and GET /__admin/events: server-sent events naming what
 * changed (requests, state, faults), so that the page fetches it again from the control API.
 *
 * The partner API pays nothing for it: no hook on the request path. A watcher compares counters a
 * few times a second, and only while a dashboard is connected.
 */
export default async function dashboardRoutes(app: FastifyInstance) {
  const preact = fileURLToPath(import.meta.resolve('htm/preact/standalone'));
  await app.register(fastifyStatic, { root: join(packageRoot, 'dashboard'), prefix: '/ui/', index: 'index.html', redirect: true });
  app.get('/ui', (_request, reply) => reply.redirect(`${app.prefix}/ui/`));
  app.get('/ui/vendor/preact-htm.js', (_request, reply) => reply.type('text/javascript; charset=utf-8').sendFile('standalone.mjs', dirname(preact)));

  await app.register(sse, { heartbeatInterval: 15_000 });
  const heard = liveTopics(app);
  const watchers = new Set<FastifyReply>();
  let last = fingerprint(app, heard);
  let timer: NodeJS.Timeout | null = null;
  const look = () => {
    const now = fingerprint(app, heard);
    const changed = (Object.keys(now) as Topic[]).filter((k) => now[k] !== last[k]);
    last = now;
    if (changed.length === 0) return;
    for (const reply of watchers) if (reply.sse.isConnected) void reply.sse.send({ event: 'change', data: { topics: changed } }).catch(() => watchers.delete(reply));
  };
  // preClose, not onClose: the server waits for in-flight requests before onClose, and an open stream
  // is one, so a stop would wait for every dashboard tab to close. A last `bye` event tells the page
  // that the server is going away (it shows "server stopped" and waits for it to come back).
  app.addHook('preClose', async () => {
    if (timer) clearInterval(timer);
    timer = null;
    const open = [...watchers];
    watchers.clear();
    await Promise.all(open.map((reply) => (reply.sse.isConnected ? reply.sse.send({ event: 'bye', data: { reason: 'the server is stopping' } }).catch(() => undefined) : undefined)));
    for (const reply of open) reply.sse.close();
  });

  const EventsQuery = { type: 'object', properties: { access_token: { type: 'string', description: "the admin token, or a partner's access token, for a browser EventSource (it cannot send headers)" } } } as const;
  app.get('/events', {
    sse: 'only',
    // Topic names only, no application's data: a partner's token (its dashboard) may listen too.
    config: { control: 'any', docsOnly: { querystring: EventsQuery } },
    schema: {
      summary: 'Server-sent events: what changed (requests, state, faults)',
      description: 'A `hello` event, then a `change` event with `{topics}` whenever the request journal, the stored state (orders, items, deliveries, receivers, the clock) or the faults change, at most four times a second, and a last `bye` event when the server stops. On a PostgreSQL store, the requests and writes of the other instances on the same database count too (they announce them within a second). The dashboard listens to it and fetches what changed.',
    },
  }, async (_request, reply) => {
    reply.sse.keepAlive();
    watchers.add(reply);
    if (!timer) {
      last = fingerprint(app, heard);
      timer = setInterval(look, WATCH_MS);
      timer.unref();
    }
    reply.sse.onClose(() => {
      watchers.delete(reply);
      if (watchers.size === 0 && timer) {
        clearInterval(timer);
        timer = null;
      }
    });
    await reply.sse.send({ event: 'hello', data: { topics: ['requests', 'state', 'faults'] satisfies Topic[] } });
  });
}
