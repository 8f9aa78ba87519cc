// The report's books as the store keeps them: a saved finding is the store's own copy.
import t from 'tap';
import { join } from 'node:path';
import { ReportBooks } from '../../src/report/books.js';
import { createStore } from '../../src/store/index.js';
import { tempDir } from '../tmp.js';
import { startPostgres } from '../pg/server.js';
import { until } from '../until.js';

const example = (n: number) => ({ method: 'GET', url: '/api/v3/activities', reqId: `req-${n}`, at: Date.UTC(2026, 0, 15, 10, 0, n) });

t.test("a finding's details noted after a save change the store only at the next save", async (t) => {
  const store = await createStore(join(tempDir(t), 'state.json'));
  t.teardown(() => store.close());
  const books = new ReportBooks(store, () => undefined);
  await store.update('a', (tn) => void (tn.carts.c = { uuid: 'c' })); // an application with state
  const stored = () => store.tenant('a').report as Record<string, { others?: string[] }>;
  const key = 'f:unsupported-locale\u001f';

  const book = books.of('a', () => new Date(Date.UTC(2026, 0, 15)));
  book.note('unsupported-locale', example(1), 'xx-1', { group: '' });
  book.note('unsupported-locale', example(2), 'xx-2', { group: '' });
  books.touched('a');
  await books.flush();
  t.same(stored()[key]?.others, ['xx-2']);

  book.note('unsupported-locale', example(3), 'xx-3', { group: '' });
  t.same(stored()[key]?.others, ['xx-2'], 'not yet saved: the store holds what was saved');
  books.touched('a');
  await books.flush();
  t.same(stored()[key]?.others, ['xx-2', 'xx-3']);

  // A book loaded from the store (another instance's, or after eviction) does not share it either.
  const loaded = new ReportBooks(store, () => undefined).of('a', () => new Date());
  loaded.note('unsupported-locale', example(4), 'xx-4', { group: '' });
  t.same(stored()[key]?.others, ['xx-2', 'xx-3']);
});

t.test('shared store: a book evicted from memory is saved with its own share only, also while a save of it is under way', async (t) => {
  const server = await startPostgres(t);
  const store = await createStore(await server.createDatabase('books_evicted'));
  t.teardown(() => store.close());
  for (const app of ['a', 'b', 'c']) await store.update(app, (tn) => void (tn.carts.c = { uuid: 'c' }));
  const books = new ReportBooks(store, () => undefined, 1);
  const requests = (app: string) => (store.tenant(app).report?.book as { requests?: number } | undefined)?.requests;
  const since = () => new Date(Date.UTC(2026, 0, 15));

  const a = books.of('a', since);
  a.requests += 3;
  books.touched('a');
  await books.flush();
  t.equal(requests('a'), 3);
  a.requests += 2;
  books.of('b', since); // a goes out of memory, saved as it goes
  await until('the evicted book saved', () => requests('a') !== 3);
  t.equal(requests('a'), 5, 'its share since the last save, not the whole book again');

  const b = books.of('b', since);
  b.requests += 4;
  books.touched('b');
  const saving = books.flush(); // b's save under way...
  books.of('c', since); // ...when b goes out of memory: its second save waits for the first
  await saving; // the second save's write is queued by now
  await store.flush();
  t.equal(requests('b'), 4, 'counted once');
});
