// Two instances on one PostgreSQL database: a listener connected to one of them gets the deliveries
// of moves made on the other, which claims them, sees the connection is elsewhere and hands them off.
import t from 'tap';
import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { createStore } from '../../src/store/index.js';
import { bookOrder, overInject } from '../book-order.js';
import { buildTestApp } from '../helper.js';
import { startPostgres } from '../pg/server.js';
import { listener, receiver, until } from './processes.js';

const SECRET = 'pg-listen-secret';
const server = await startPostgres(t);

t.test('a listener on instance A gets the deliveries of moves made and claimed on instance B', async (t) => {
  const url = await server.createDatabase('listen');
  const [a, b] = (await Promise.all(
    [0, 1].map(async () => {
      const app = await buildTestApp({ store: await createStore(url), config: { webhookSecret: SECRET } });
      t.teardown(() => app.close());
      return app;
    }),
  )) as [FastifyInstance, FastifyInstance];
  await a.listen({ port: 0, host: '127.0.0.1' });
  const origin = `http://127.0.0.1:${(a.server.address() as AddressInfo).port}`;
  const local = await receiver(t, SECRET);
  await listener(t, ['--url', origin, '--forward-to', local.url, '--application', 'acme-shop']);

  const items: string[] = [];
  for (let i = 0; i < 4; i++) {
    const order = await bookOrder(overInject(b, 'acme-shop'));
    const item = order.items[0]!.uuid;
    items.push(item);
    const moved = await b.inject({ method: 'POST', url: `/__admin/order-items/${item}/status`, payload: { status: 'OK' } });
    t.equal(moved.statusCode, 200);
  }
  await until('four webhooks through the listener', () => local.got.length >= 4);
  t.same(local.got.map((h) => h.item).sort(), [...items].sort(), 'each move once');
  t.ok(local.got.every((h) => h.verified && h.status === 'OK'));
  type Listed = { deliveries: Array<{ target?: string; state: string; attempts: Array<{ status_code?: number; error?: string }> }> };
  // The receiver's answer goes back to A, which records it: B's view has it once that write is in.
  const deliveries = await until('the four outcomes recorded', async () => {
    const listed = ((await b.inject({ url: '/__admin/webhooks/deliveries?application=acme-shop' })).json() as Listed).deliveries;
    return listed.length === 4 && listed.every((d) => d.state !== 'pending') ? listed : null;
  });
  for (const d of deliveries) t.match(d, { target: 'listener', state: 'delivered', attempts: [{ status_code: 200 }] }, 'one attempt each: never a "no listener connected"');
  t.ok((b.scheduler.stats.claimed.webhook ?? 0) >= 1, `instance B claimed deliveries (${b.scheduler.stats.claimed.webhook}) and handed them off`);
  t.ok((a.scheduler.stats.claimed.webhook ?? 0) >= 4, `instance A claimed and sent them (${a.scheduler.stats.claimed.webhook})`);
});
