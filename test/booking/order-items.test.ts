import t from 'tap';
import { createStore, type Store } from '../../src/store/index.js';
import { OrderItemIndex } from '../../src/booking/order-items.js';
import type { Order } from '../../src/booking/records.js';

// Only the fields the index reads; the rest of an order does not matter to it.
const order = (uuid: string, ...items: string[]) => ({ uuid, items: items.map((i) => ({ uuid: i, status: 'PENDING' })) }) as unknown as Order;

async function put(store: Store, index: OrderItemIndex, application: string, o: Order) {
  await store.update(application, (tenant) => {
    tenant.orders[o.uuid] = o as unknown as (typeof tenant.orders)[string];
    index.add(application, o);
  });
}

t.test('finds items of orders written before the first lookup (a restart) and after it', async (t) => {
  const store = await createStore('memory');
  const before = new OrderItemIndex(store);
  await put(store, before, 'a', order('o1', 'i1', 'i2'));
  const index = new OrderItemIndex(store); // a new process: the state holds o1, the index nothing
  t.match(index.find('i2'), { application: 'a', order: { uuid: 'o1' }, item: { uuid: 'i2' } });
  await put(store, index, 'a', order('o2', 'i3'));
  t.match(index.find('i3', 'a'), { application: 'a', order: { uuid: 'o2' } });
  t.equal(index.find('nope'), null);
});

t.test('an application filter finds only that application items', async (t) => {
  const store = await createStore('memory');
  const index = new OrderItemIndex(store);
  await put(store, index, 'a', order('o1', 'i1'));
  await put(store, index, 'b', order('o2', 'i2'));
  t.equal(index.find('i2', 'a'), null);
  t.match(index.find('i2', 'b'), { application: 'b' });
  t.match(index.find('i2'), { application: 'b' });
});

t.test('after a reset, the reset application items are gone and new ones are found', async (t) => {
  const store = await createStore('memory');
  const index = new OrderItemIndex(store);
  await put(store, index, 'a', order('o1', 'i1'));
  await put(store, index, 'b', order('o2', 'i2'));
  t.ok(index.find('i1'));
  await store.reset('a');
  t.equal(index.find('i1'), null, 'not answered from the index of the reset application');
  t.ok(index.find('i2'), 'other applications keep theirs');
  await put(store, index, 'a', order('o1', 'i1'));
  t.ok(index.find('i1', 'a'));
  await store.reset();
  t.equal(index.find('i1'), null);
  t.equal(index.find('i2'), null);
});

t.test('a write that rolled back leaves nothing to find', async (t) => {
  const store = await createStore('memory');
  const index = new OrderItemIndex(store);
  t.equal(index.find('i1', 'a'), null); // builds the (empty) index of "a"
  await t.rejects(
    store.update('a', (tenant) => {
      const o = order('o1', 'i1');
      tenant.orders.o1 = o as unknown as (typeof tenant.orders)[string];
      index.add('a', o);
      throw new Error('refused');
    }),
  );
  t.equal(index.find('i1', 'a'), null);
});
