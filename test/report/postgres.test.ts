// The integration report on PostgreSQL: a finding that names a refused request is saved with its
// application's state and read by another instance. Its key joined the finding's id and group with
// a NUL, which PostgreSQL's text refuses: every save of such a report failed ("invalid byte sequence
// for encoding UTF8: 0x00"), so a refused request was never reported on a shared sandbox.
import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { createStore } from '../../src/store/index.js';
import { buildTestApp } from '../helper.js';
import { startPostgres } from '../pg/server.js';

const server = await startPostgres(t);

t.test('a refused request is reported by the other instance', async (t) => {
  const url = await server.createDatabase('report_keys');
  const apps: FastifyInstance[] = [];
  for (let i = 0; i < 2; i++) {
    const app = await buildTestApp({ store: await createStore(url) });
    t.teardown(() => app.close());
    apps.push(app);
  }
  const [a, b] = apps as [FastifyInstance, FastifyInstance];
  const headers = { 'x-service-application': 'shop', 'x-service-version': '3.5.0', 'content-type': 'application/json' };
  const cart = (await a.inject({ method: 'POST', url: '/api/v3/carts', headers })).json().uuid as string;
  // A product identifier with a NUL in it: the client's own bytes reach the finding too.
  const refused = await a.inject({ method: 'POST', url: `/api/v3/carts/${cart}/items`, headers, payload: [{ type: 'musement', product_identifier: 'no-such\u0000product', quantity: 1 }] });
  t.ok(refused.statusCode >= 400 && refused.statusCode < 500, `refused with ${refused.statusCode}`);
  const findings = async () => ((await b.inject({ url: '/__admin/report?application=shop' })).json().findings as Array<{ id: string }>).map((f) => f.id);
  const t0 = Date.now();
  while ((await findings()).length === 0) {
    if (Date.now() - t0 > 10_000) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  t.not((await findings()).length, 0, `the other instance reports the refusal (${(await findings()).join(', ')})`);
});
