import t from 'tap';
import { fixedClock } from '../../src/clock.js';
import { APP, buildTestApp, H } from '../helper.js';

const DAY_MS = 24 * 3600 * 1000;

t.test('carts without an order are deleted 3 months after their last change (server clock)', async (t) => {
  const clock = fixedClock('2026-01-15T10:00:00Z');
  const app = await buildTestApp({ clock });
  t.teardown(() => app.close());
  const create = async () => (await app.inject({ method: 'POST', url: '/api/v3/carts', headers: H })).json().uuid as string;
  const get = (uuid: string) => app.inject({ method: 'GET', url: `/api/v3/carts/${uuid}`, headers: H });
  const old = await create();
  clock.set(new Date('2026-04-15T09:59:00Z'));
  t.equal((await get(old)).statusCode, 200, 'a minute before 3 months it is there');
  clock.set(new Date('2026-04-15T10:00:00Z'));
  const gone = await get(old);
  t.equal(gone.statusCode, 404);
  t.same(gone.json(), { code: '1400', message: `Cart ${old} does not exist: carts without an order are deleted 3 months after their last change` });
  t.ok(app.store.tenant(APP).carts[old], 'still in the state until a sweep');
  const fresh = await create();
  t.notOk(app.store.tenant(APP).carts[old], 'creating a cart swept the expired one out of the state');
  t.ok(app.store.tenant(APP).carts[fresh]);
  clock.advance(DAY_MS);
  await create();
  t.equal(Object.keys(app.store.tenant(APP).carts).length, 2, 'the new carts stay');
});
