// Control writes sent at once, to one instance or to two sharing a PostgreSQL database: each is
// decided under the store's lock on the state as it is then, so none is lost or applied twice.
import t, { type Test } from 'tap';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { systemClock, type Clock } from '../../src/clock.js';
import { createStore, type Store } from '../../src/store/index.js';
import { bookOrder, overInject } from '../book-order.js';
import { buildTestApp } from '../helper.js';
import { startPostgres } from '../pg/server.js';
import { tempDir } from '../tmp.js';

const pg = await startPostgres(t);
let databases = 0;

/** The places a control write may race: two instances on one database, or one instance on a state file. */
const setups: Record<string, (t: Test, clock?: () => Clock) => Promise<FastifyInstance[]>> = {
  postgres: (t, clock) => onPostgres(t, clock),
  'file store': async (t, clock) => [started(t, await buildTestApp({ store: await createStore(join(tempDir(t), 'state.json')), ...(clock ? { clock: clock() } : {}) }))],
};

/** Two instances on a fresh database (a fixed clock each, unless `clock` makes them). */
async function onPostgres(t: Test, clock?: () => Clock): Promise<FastifyInstance[]> {
  const url = await pg.createDatabase(`control_${++databases}`);
  return Promise.all([0, 1].map(async () => started(t, await buildTestApp({ store: await createStore(url), ...(clock ? { clock: clock() } : {}) }))));
}

function started(t: Test, app: FastifyInstance): FastifyInstance {
  t.teardown(() => app.close());
  return app;
}

const HOUR = 3_600_000;
const times = <T>(n: number, fn: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => fn(i));

for (const [where, setup] of Object.entries(setups)) {
  t.test(`${where}: twelve PT1H advances at once move a clock 12 h, an application's and the server's`, async (t) => {
    const apps = await setup(t, systemClock);
    const on = (i: number) => apps[i % apps.length] as FastifyInstance;
    for (const application of ['team', undefined]) {
      const moves = await Promise.all(times(12, (i) => on(i).inject({ method: 'POST', url: '/__admin/clock', payload: { advance: 'PT1H', application } })));
      t.same(moves.map((r) => r.statusCode), times(12, () => 200), 'every move answered 200');
      // Each move started from the time the one before it left: its answer is an hour (and the real
      // time that passed meanwhile) after the one before.
      const answered = moves.map((r) => Date.parse(r.json().now)).sort((a, b) => a - b);
      const gaps = answered.slice(1).map((at, i) => at - (answered[i] as number));
      t.ok(gaps.every((g) => g >= HOUR && g < HOUR + 60_000), `answers an hour apart: ${gaps.join(', ')}`);
      for (const [i, app] of apps.entries()) {
        const read = (await app.inject({ url: `/__admin/clock${application ? `?application=${application}` : ''}` })).json();
        if (application) t.equal(read.application_offset_ms, 12 * HOUR, `instance ${i}: the application's clock moved exactly 12 h`);
        else t.equal(read.offset_ms, 12 * HOUR, `instance ${i}: the server clock moved exactly 12 h`);
      }
    }
  });
}

/**
 * Holds the next write (`update` or `updateServer`) of an instance's store until released: the
 * request has read what it needed and waits for the store's lock, as it does while another
 * instance's write holds it.
 */
function holdNext(store: Store, write: 'update' | 'updateServer'): { waiting: Promise<void>; release(): void } {
  const original = store[write] as (...args: unknown[]) => Promise<unknown>;
  let release = () => {};
  let reached = () => {};
  const held = new Promise<void>((r) => (release = r));
  const waiting = new Promise<void>((r) => (reached = r));
  Object.assign(store, {
    [write]: async (...args: unknown[]) => {
      Object.assign(store, { [write]: original });
      reached();
      await held;
      return original.apply(store, args);
    },
  });
  return { waiting, release };
}

t.test('postgres: an order item reset on one instance while the other moves it is a 404, not a 500', async (t) => {
  const [a, b] = (await onPostgres(t)) as [FastifyInstance, FastifyInstance];
  const order = await bookOrder(overInject(a, 'team'));
  const hold = holdNext(a.store, 'update');
  const move = a.inject({ method: 'POST', url: `/__admin/order-items/${order.items[0]?.uuid}/status`, payload: { status: 'OK' } });
  await hold.waiting;
  t.equal((await b.inject({ method: 'POST', url: '/__admin/reset', payload: { application: 'team' } })).statusCode, 200);
  hold.release();
  const res = await move;
  t.equal(res.statusCode, 404, res.body);
  t.match(res.json(), { code: String, message: /does not exist/ });
  t.same(a.store.tenant('team').orders, {}, 'the reset stands: the move wrote nothing');
});

t.test('postgres: a client revoked on two instances at once is revoked once: one 204, one 404', async (t) => {
  const [a, b] = (await onPostgres(t)) as [FastifyInstance, FastifyInstance];
  const registered = await a.inject({ method: 'POST', url: '/__admin/clients', payload: { applications: ['team'], scopes: [] } });
  const url = `/__admin/clients/${registered.json().client_id}`;
  const hold = holdNext(a.store, 'updateServer');
  const first = a.inject({ method: 'DELETE', url });
  await hold.waiting;
  t.equal((await b.inject({ method: 'DELETE', url })).statusCode, 204, 'revoked on the other instance');
  hold.release();
  const late = await first;
  t.equal(late.statusCode, 404, 'the revoke that waited finds no client');
  t.match(late.json(), { code: String, message: /No registered client/ });
});
