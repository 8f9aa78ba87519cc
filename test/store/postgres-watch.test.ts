// What a person watches spans the instances: two app instances on one real PostgreSQL, each with
// its own store; the request journal, the integration report, the dashboard's live events and
// /__admin/orders of one show the work of the other.
import t, { type Test } from 'tap';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { createStore, type Store } from '../../src/store/index.js';
import { bookOrder, overInject } from '../book-order.js';
import { buildTestApp } from '../helper.js';
import { startPostgres } from '../pg/server.js';

const server = await startPostgres(t);
let n = 0;

async function instances(t: Test, count = 2): Promise<FastifyInstance[]> {
  const url = await server.createDatabase(`watch_${++n}`);
  const apps: FastifyInstance[] = [];
  for (let i = 0; i < count; i++) {
    const app = await buildTestApp({ store: await createStore(url) });
    t.teardown(() => app.close());
    apps.push(app);
  }
  return apps;
}

/** Polls (every 50 ms, at most 5 s) until `check` resolves true; resolves with how long it took. */
async function within(check: () => Promise<boolean>): Promise<number> {
  const t0 = Date.now();
  while (!(await check())) {
    if (Date.now() - t0 > 5000) throw new Error('not within 5 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  return Date.now() - t0;
}

const H = (application: string) => ({ 'x-service-application': application });
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the control API's JSON
const json = async (app: FastifyInstance, url: string): Promise<any> => (await app.inject({ url })).json();

t.test('a request on one instance is in the journal of the other within a second or two, with its exchange', async (t) => {
  const [a, b] = (await instances(t)) as [FastifyInstance, FastifyInstance];
  const login = { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' };
  const sent = await a.inject({ method: 'POST', url: '/api/v3/login', headers: H('shop'), payload: login });
  t.equal(sent.statusCode, 200);
  const took = await within(async () => (await json(b, '/__admin/requests')).requests.length === 1);
  t.ok(took < 2000, `listed on the other instance after ${took} ms`);
  const [entry] = (await json(b, '/__admin/requests?application=shop')).requests;
  t.match(entry, { method: 'POST', path: '/api/v3/login', status: 200, application: 'shop' });
  const detail = await json(b, `/__admin/requests/${entry.id}`);
  t.match(detail.request.body, /"client_id":"sandbox-client"/, 'its exchange too');
  t.notMatch(detail.request.body, /sandbox-secret/, 'secrets masked as in memory');
  t.notMatch(detail.response.body, new RegExp(sent.json().access_token), 'the token too');

  // Both instances' requests, one order of ids.
  await b.inject({ url: '/api/v3/currencies', headers: H('shop') });
  const both = (await json(b, '/__admin/requests')).requests;
  t.same(
    both.map((r: { path: string }) => r.path),
    ['/api/v3/currencies', '/api/v3/login'],
    "the instance asked lists its own latest request at once, newest first, beside the other's",
  );
  t.equal((await b.inject({ method: 'DELETE', url: '/__admin/requests?application=shop' })).statusCode, 204);
  t.same((await json(a, '/__admin/requests')).requests, [], 'a clear on one clears it for all');
  t.equal((await a.inject({ url: `/__admin/requests/${entry.id}` })).statusCode, 404);
  t.equal((await a.inject({ url: '/__admin/requests/99999999999999999999' })).statusCode, 404, 'an id past what the database holds: 404, not 503');
});

t.test('a reset on one instance drops the journal for all', async (t) => {
  const [a, b] = (await instances(t)) as [FastifyInstance, FastifyInstance];
  await a.inject({ url: '/api/v3/currencies', headers: H('one') });
  await a.inject({ url: '/api/v3/currencies', headers: H('two') });
  await within(async () => (await json(b, '/__admin/requests')).requests.length === 2);
  await b.inject({ method: 'POST', url: '/__admin/reset', payload: { application: 'one' } });
  t.same((await json(a, '/__admin/requests')).requests.map((r: { application: string }) => r.application), ['two']);
  await a.inject({ method: 'POST', url: '/__admin/reset' });
  t.same((await json(b, '/__admin/requests')).requests, []);
});

t.test('an exchange is stored uncompressed (it lives about a second) and read back whole', async (t) => {
  const url = await server.createDatabase(`watch_${++n}`);
  const store: Store = await createStore(url);
  t.teardown(() => store.close());
  const body = JSON.stringify({ items: Array.from({ length: 200 }, (_, i) => ({ uuid: `activity-${i}`, title: 'A long catalog answer' })) });
  store.journal!.add({ at: 1, method: 'GET', path: '/x', status: 200, duration_ms: 1, application: 'a', req_id: 'r1', detail: () => ({ request: { headers: {}, body: null, truncated: false, bytes: 0 }, response: { headers: {}, body, truncated: false, bytes: body.length } }) });
  await store.journal!.flush();
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  t.teardown(() => c.end());
  const { rows } = await c.query('select id, pg_column_compression(response) as compression, pg_column_size(response) as size from mock_journal_detail');
  t.equal(rows.length, 1);
  t.equal(rows[0].compression, null, 'not compressed');
  t.ok(rows[0].size > body.length, `stored at its full size (${rows[0].size} bytes)`);
  t.equal((await store.journal!.get(Number(rows[0].id)))?.response?.body, body);
});

t.test("a batch's entries keep their order across applications, and each is found by its id", async (t) => {
  const url = await server.createDatabase(`watch_${++n}`);
  const store: Store = await createStore(url);
  t.teardown(() => store.close());
  const journal = store.journal!;
  const add = (application: string, path: string) => journal.add({ at: 1, method: 'GET', path, status: 200, duration_ms: 1.5, application, req_id: path, detail: () => null });
  add('a', '/1');
  add('b', '/2');
  add('a', '/3');
  await journal.flush();
  add('b', '/4');
  await journal.flush();
  const all = await journal.list(undefined, 10);
  t.same(all.map((e) => e.path), ['/4', '/3', '/2', '/1'], 'newest first, applications interleaved as they came');
  t.same((await journal.list('a', 1)).map((e) => e.path), ['/3'], "one application's newest");
  for (const e of all) t.same(await journal.get(e.id), { ...e, request: null, response: null }, `${e.path} by its id`);
  t.equal(await journal.get(all[0]!.id + 1), undefined, 'an id between entries is none');
});

t.test('the journal in the database stays bounded: 1,000 per application, 200 applications, 500 exchanges', async (t) => {
  const url = await server.createDatabase(`watch_${++n}`);
  const store: Store = await createStore(url);
  t.teardown(() => store.close());
  const journal = store.journal!;
  const entry = (application: string, i: number) => ({ at: i, method: 'GET', path: `/x/${i}`, status: 200, duration_ms: 1, application, req_id: `r${i}`, detail: () => ({ request: { headers: {}, body: null, truncated: false, bytes: 0 }, response: { headers: {}, body: 'ok', truncated: false, bytes: 2 } }) });
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  t.teardown(() => c.end());
  const count = async (sql: string) => Number((await c.query(sql)).rows[0].n);
  // 25 batches of 200 (each keeping the exchanges of its newest 25): the table trims what the batches add up to.
  for (let b = 0; b < 25; b++) {
    for (let i = 200 * b; i < 200 * (b + 1); i++) journal.add(entry('busy', i));
    await journal.flush();
  }
  t.equal(await count(`select count(*) n from mock_journal j, json_array_elements(j.entries) e where app = 'busy'`), 1000, 'the latest 1,000 of an application');
  t.equal(await count(`select min((e->>1)::bigint) n from mock_journal j, json_array_elements(j.entries) e where app = 'busy'`), 4000);
  t.equal(await count(`select count(*) n from mock_journal where app = 'busy'`), 5, 'in a row per batch');
  t.equal(await count('select count(*) n from mock_journal_detail'), 500, 'the exchanges of the latest 500 (of 625)');
  const listed = await journal.list('busy', 1000);
  t.same([listed.length, listed[0]?.req_id], [1000, 'r4999'], 'newest first');
  t.equal((await journal.get(listed[0]!.id))?.response?.body, 'ok');
  t.equal((await journal.get(listed[24]!.id))?.response?.body, 'ok', 'the newest 25 of a batch keep their exchange');
  t.equal((await journal.get(listed[25]!.id))?.response, null, 'the rest of a busy batch does not');
  t.equal((await journal.get(listed[800]!.id))?.response?.body, 'ok', 'as do those of an older batch');
  for (let i = 0; i < 300; i++) journal.add(entry(`app-${i}`, i));
  await journal.flush();
  t.equal(await count('select count(distinct app) n from mock_journal'), 200, 'the 200 most recently active applications');
  t.equal(await count(`select count(*) n from mock_journal where app = 'busy' or app = 'app-99'`), 0, 'the least recently active went');
  t.equal(await count('select count(*) n from mock_journal_apps'), 200);
  t.equal((await journal.list(undefined, 1000))[0]?.application, 'app-299');
});

t.test("the report on one instance counts the other's requests, and its own beside them", async (t) => {
  const [a, b] = (await instances(t)) as [FastifyInstance, FastifyInstance];
  // A booking on a (it gives the application state: a report is saved with it), reads on b.
  const order = await bookOrder(overInject(a, 'shop'));
  const onA = (await json(a, '/__admin/report?application=shop')) as { requests: number };
  t.ok(onA.requests >= 8, `a counts its booking (${onA.requests} requests)`);
  for (let i = 0; i < 3; i++) await b.inject({ url: `/api/v3/orders/${order.uuid}`, headers: H('shop') });
  // a saves its share about a second after its requests.
  await within(async () => (await json(b, '/__admin/report?application=shop')).requests === onA.requests + 3);
  const report = await json(b, '/__admin/report?application=shop');
  t.match(report.coverage.steps.find((s: { name: string }) => s.name === 'no-payment'), { done: true, count: 1 }, "a's steps are covered on b");
  // b's share saved too: a sees the sum.
  await within(async () => (await json(a, '/__admin/report?application=shop')).requests === onA.requests + 3);
  // More on both: nothing counted twice across the saves.
  await a.inject({ url: '/api/v3/currencies', headers: H('shop') });
  await b.inject({ url: '/api/v3/currencies', headers: H('shop') });
  // Each counts the other's request once that one's share is saved: exactly 5 more on both (counted
  // twice, a count would go past it and never show it).
  const count = async (app: FastifyInstance) => (await json(app, '/__admin/report?application=shop')).requests;
  await within(async () => (await count(a)) === onA.requests + 5 && (await count(b)) === onA.requests + 5);
  t.equal(await count(a), onA.requests + 5);
  t.equal(await count(b), onA.requests + 5);
});

t.test("an event stream open on one instance hears of the other's writes and requests", async (t) => {
  const [a, b] = (await instances(t)) as [FastifyInstance, FastifyInstance];
  await b.listen({ port: 0, host: '127.0.0.1' });
  const { port } = b.server.address() as { port: number };
  const controller = new AbortController();
  t.teardown(() => controller.abort());
  const res = await fetch(`http://127.0.0.1:${port}/__admin/events`, { headers: { accept: 'text/event-stream' }, signal: controller.signal });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  /** Reads until every pattern is in what was read since the last call; resolves with that. */
  const until = async (...patterns: RegExp[]) => {
    while (!patterns.every((p) => p.test(text))) {
      const late = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no ${patterns.join(' and ')} within 5 s: ${text}`)), 5000).unref());
      const { value, done } = await Promise.race([reader.read(), late]);
      if (done) throw new Error('the event stream ended');
      text += value;
    }
    const seen = text;
    text = '';
    return seen;
  };
  await until(/event: hello/);
  const t0 = Date.now();
  await a.inject({ method: 'POST', url: '/api/v3/carts', headers: H('shop') });
  // One announcement may carry both (they go at most every 250 ms), or each its own.
  const change = (topic: string) => new RegExp(`event: change\\ndata: \\{"topics":\\[[^\\]]*"${topic}"`);
  const seen = await until(change('state'), change('requests'));
  t.match(seen, change('state'), 'a cart created on the other instance');
  t.match(seen, change('requests'), 'and its request in the journal');
  t.ok(Date.now() - t0 < 2000, `within ${Date.now() - t0} ms`);
});

t.test('/__admin/orders on one instance lists an order made on the other', async (t) => {
  const [a, b] = (await instances(t)) as [FastifyInstance, FastifyInstance];
  const order = await bookOrder(overInject(a, 'shop'));
  const { orders } = await json(b, '/__admin/orders');
  t.match(orders, [{ application: 'shop', uuid: order.uuid, identifier: order.identifier }]);
});
