// The PostgreSQL store's contract, against a real PostgreSQL (test/pg/server.ts): what the file
// store promises (store.test.ts), plus what several instances on one database need.
import { randomUUID } from 'node:crypto';
import t, { type Test } from 'tap';
import pg from 'pg';
import { createStore, StoreError, type Store, type Tenant } from '../../src/store/index.js';
import { Db } from '../../src/store/postgres/db.js';
import { DUE_SQL } from '../../src/store/postgres/due.js';
import { redactUrl, scrub } from '../../src/store/postgres/errors.js';
import { PRESENCE_LOCK, SCHEMA_VERSION } from '../../src/store/postgres/schema.js';
import { SQL } from '../../src/store/postgres/sql.js';
import { query, startPostgres } from '../pg/server.js';

const server = await startPostgres(t);
let n = 0;
/** A database of its own for one test. */
const fresh = () => server.createDatabase(`contract_${++n}`);
const token = (clientId: string) => ({ clientId, scopes: [], issuedAt: '2026-01-15T10:00:00Z', expiresAt: '2026-01-15T11:00:00Z' });

async function open(t: Test, url: string): Promise<Store> {
  const s = await createStore(url);
  t.teardown(() => s.close());
  return s;
}


/** Polls (every 20 ms, at most 5 s) until `check` holds. */
async function eventually(check: () => boolean): Promise<boolean> {
  for (let i = 0; i < 250 && !check(); i++) await new Promise((r) => setTimeout(r, 20));
  return check();
}

t.test('writes read back from a fresh store on the same database; the location hides the password', async (t) => {
  const url = await fresh();
  const a = await open(t, url);
  t.equal(a.kind, 'postgres');
  t.notMatch(a.location, new URL(url).password);
  t.match(a.location, /^postgres:\/\/mock:\*\*\*@127\.0\.0\.1:\d+\/contract_\d+$/);
  await a.update('app-a', (tn) => {
    tn.tokens.t1 = token('c1');
    tn.orders.o1 = { uuid: 'o1', status: 'PENDING' };
    tn.webhookConfig = { url: 'http://127.0.0.1:9/hook', secret: null };
    tn.counters.order = 7;
  });
  await a.update('app-a', (tn) => {
    const o = tn.orders.o1;
    if (o) o.status = 'OK';
  });
  const b = await open(t, url);
  t.same(b.tenant('app-a').tokens.t1, token('c1'));
  t.equal(b.tenant('app-a').orders.o1?.status, 'OK', 'a nested change of a read record is written');
  t.same(b.tenant('app-a').webhookConfig, { url: 'http://127.0.0.1:9/hook', secret: null });
  t.equal(b.tenant('app-a').counters.order, 7);
  t.same(b.applications(), ['app-a']);
  t.equal(await a.update('app-a', () => 'result'), 'result', 'update resolves with the function result');
  t.equal(a.stats.writes, 2, 'an update that changed nothing writes nothing');
});

t.test('a second instance sees each write at its next sync, deletions and whole fields included', async (t) => {
  const url = await fresh();
  const a = await open(t, url);
  const b = await open(t, url);
  await a.update('x', (tn) => {
    tn.carts.c1 = { uuid: 'c1', n: 1 };
    tn.carts.c2 = { uuid: 'c2' };
  });
  t.equal(b.tenant('x').carts.c1, undefined, 'not before a sync');
  await b.sync!('x');
  t.same(b.tenant('x').carts.c1, { uuid: 'c1', n: 1 });
  await b.update('x', (tn) => {
    (tn.carts.c1 as unknown as { n: number }).n = 2;
    delete tn.carts.c2;
    tn.orders = { o: { uuid: 'o' } };
    delete (tn as unknown as Record<string, unknown>).counters;
  });
  await a.sync!('x');
  t.same(a.tenant('x').carts.c1, { uuid: 'c1', n: 2 });
  t.equal(a.tenant('x').carts.c2, undefined, 'a deleted key is deleted');
  t.same(Object.keys(a.tenant('x').orders), ['o'], 'a collection replaced whole');
  await a.update('x', (tn) => {
    tn.orders.p = { uuid: 'p' };
    tn.orders = { q: { uuid: 'q' }, p: { uuid: 'p2' } };
  });
  await b.sync!('x');
  t.same(b.tenant('x').orders, { q: { uuid: 'q' }, p: { uuid: 'p2' } }, 'entries then a whole replacement in one write');
  const c = await open(t, url);
  t.same(c.tenant('x').orders, { q: { uuid: 'q' }, p: { uuid: 'p2' } });
  t.same(c.tenant('x').counters, {}, 'a deleted collection comes back empty');
  t.equal(Object.getPrototypeOf(c.tenant('x').orders), null, 'collections are dictionaries without a prototype');
});

t.test('a throwing update leaves no partial state and writes nothing', async (t) => {
  const url = await fresh();
  const s = await open(t, url);
  await s.update('a', (tn) => void (tn.orders.o1 = { uuid: 'o1', n: 1 }));
  await t.rejects(
    s.update('a', (tn) => {
      (tn.orders.o1 as unknown as { n: number }).n = 2;
      tn.orders.o2 = { uuid: 'o2' };
      tn.counters.x = 1;
      throw new Error('validation failed');
    }),
    { message: 'validation failed' },
  );
  t.same(s.tenant('a').orders.o1, { uuid: 'o1', n: 1 });
  t.equal(s.tenant('a').orders.o2, undefined);
  t.equal(s.tenant('a').counters.x, undefined);
  await t.rejects(s.update('new-app', () => { throw new Error('no'); }));
  t.notOk(s.applications().includes('new-app'), 'a tenant created by a failed update is dropped');
  await t.rejects(s.update('a', () => Promise.resolve(1)), TypeError, 'async functions are refused');
  const r = await open(t, url);
  t.same(r.tenant('a').orders, { o1: { uuid: 'o1', n: 1 } });
  t.same(r.applications(), ['a']);
  t.equal((await query(url, 'select count(*)::int as n from mock_records')).rows[0].n, 1, 'one row written in all');
});

t.test("the round's literals are pg.escapeLiteral's", async (t) => {
  const db = new Db({} as pg.Pool, 'postgres://x@127.0.0.1/x');
  for (const s of ['', 'plain', "it's", '\\', "o'k \\ \"app\"'); drop table mock_records; --", JSON.stringify({ t: 'nul \u0000, quote \', backslash \\, emoji 🎟' }), "''\\\\''"]) {
    t.equal(db.literal(s), pg.escapeLiteral(s), JSON.stringify(s));
  }
});

t.test('values and keys round-trip as JSON, "__proto__" and \\u0000 included', async (t) => {
  const url = await fresh();
  const s = await open(t, url);
  const odd = { uuid: 'x', text: 'nul \u0000, quote \', backslash \\, emoji 🎟', n: 1.5, list: [null, true, { deep: [1] }] };
  await s.update('__proto__', (tn) => {
    tn.carts.__proto__ = odd;
    tn.carts["it's"] = { uuid: 'q' };
  });
  t.equal(({} as Record<string, unknown>).carts, undefined, 'Object.prototype is untouched');
  const r = await open(t, url);
  t.same(r.applications(), ['__proto__']);
  t.same(r.tenant('__proto__').carts.__proto__, odd);
  t.same(r.tenant('__proto__').carts["it's"], { uuid: 'q' });
  t.same(r.tenant('constructor'), r.tenant('nobody'), 'an unknown application reads as empty');
  // A partner names its application in a header: quotes and backslashes reach the round's SQL as escaped literals.
  const hostile = `o'k \\ "app"'); drop table mock_records; --`;
  await s.update(hostile, (tn) => void (tn.carts.c = { uuid: 'c' }));
  const again = await open(t, url);
  t.same(again.tenant(hostile).carts, { c: { uuid: 'c' } }, 'an application name with quotes and backslashes round-trips');
  t.same(again.applications().sort(), ['__proto__', hostile].sort());
});

t.test('a write the database refuses is undone in memory and answered 503; the tenant is read again after it', async (t) => {
  const url = await fresh();
  const s = await open(t, url);
  await s.update('x', (tn) => void (tn.carts.kept = { uuid: 'kept', n: 1 }));
  // A key with NUL: PostgreSQL's text refuses it, after the function ran.
  const err = await s.update('x', (tn) => {
    (tn.carts.kept as unknown as { n: number }).n = 2;
    tn.carts['bad\u0000key'] = { uuid: 'bad' };
  }).catch((e: Error & { statusCode?: number }) => e);
  t.match(err, { name: 'StoreUnavailableError', statusCode: 503, message: /^The database postgres:\/\/mock:\*\*\*@.* did not take the change, so it was not acknowledged/ });
  t.same(s.tenant('x').carts, { kept: { uuid: 'kept', n: 1 } }, 'nothing of it stays in memory');
  await s.sync!('x');
  t.same(s.tenant('x').carts, { kept: { uuid: 'kept', n: 1 } });
  t.equal(await s.update('x', (tn) => (tn.carts.more = { uuid: 'more' }).uuid), 'more', 'the next write goes through');
  t.same(Object.keys((await open(t, url)).tenant('x').carts).sort(), ['kept', 'more']);
});

t.test('reset drops one tenant or all, here and on the other instances', async (t) => {
  const url = await fresh();
  const a = await open(t, url);
  const b = await open(t, url);
  await a.update('a', (tn) => void (tn.tokens.t = token('a')));
  await a.update('b', (tn) => void (tn.tokens.t = token('b')));
  await b.syncAll!();
  const seenA: Array<string | null> = [];
  const seenB: Array<string | null> = [];
  a.onReset((app) => seenA.push(app));
  b.onReset((app) => seenB.push(app));
  await a.reset('a');
  t.same(a.applications(), ['b']);
  t.ok(await eventually(() => seenB.length === 1), 'the other instance is told (LISTEN/NOTIFY)');
  t.same(seenB, ['a']);
  t.same(b.applications(), ['b'], 'and drops its cache');
  await a.update('a', (tn) => void (tn.tokens.u = token('a2')));
  await b.sync!('a');
  t.same(Object.keys(b.tenant('a').tokens), ['u'], 'an application written again after its reset starts empty');
  await b.reset();
  t.ok(await eventually(() => seenA.length === 2));
  t.same(seenA, ['a', null]);
  t.same(a.applications(), []);
  t.same((await open(t, url)).applications(), []);
  t.same(seenB, ['a', null]);
});

t.test('a reset missed by an instance is found at its next sync, and its listeners told', async (t) => {
  const url = await fresh();
  const a = await open(t, url);
  // Another instance is there, so a reads where x stands at each sync. A heartbeat of a that came
  // before b registered (b's start took more than 200 ms, on a busy machine) made a alone for a
  // second; b's first write waits that out (presence.ts), and a is not alone from then on.
  const b = await open(t, url);
  await b.update('x', (tn) => void (tn.carts.b = { uuid: 'b' }));
  await a.update('x', (tn) => void (tn.carts.c = { uuid: 'c' }));
  const seen: Array<string | null> = [];
  a.onReset((app) => seen.push(app));
  // Behind the store's back: as if the notification had been lost.
  await query(url, "delete from mock_records where app = 'x'; delete from mock_tenants where app = 'x'");
  await a.sync!('x');
  t.same(a.applications(), []);
  t.same(seen, ['x']);
  await a.update('x', (tn) => void (tn.carts.d = { uuid: 'd' }));
  await query(url, "update mock_tenants set born = nextval('mock_version') where app = 'x'");
  await a.sync!('x');
  t.same(seen, ['x', 'x'], 'a tenant born again (reset, then written) is a reset too');
});

t.test('server state: written on one instance, seen by the others at their next sync', async (t) => {
  const url = await fresh();
  const a = await open(t, url);
  const b = await open(t, url);
  const changes: number[] = [];
  b.onServerChange!((s) => changes.push(s.clock_offset_ms));
  await a.updateServer((s) => void (s.clock_offset_ms = 86_400_000));
  t.equal(a.server().clock_offset_ms, 86_400_000);
  await b.sync!('any');
  t.equal(b.server().clock_offset_ms, 86_400_000);
  t.same(changes, [86_400_000], 'listeners hear of a change made elsewhere');
  await b.updateServer((s) => void (s.webhook_default = { url: 'http://127.0.0.1:9/', secret: null }));
  t.same(changes, [86_400_000], 'not of their own');
  await t.rejects(a.updateServer(() => { throw new Error('no'); }), { message: 'no' });
  await a.syncAll!();
  t.same(a.server(), { clock_offset_ms: 86_400_000, webhook_default: { url: 'http://127.0.0.1:9/', secret: null } }, 'updateServer starts from the database');
});

t.test("settings changed on one instance reach the others without a sync: an application's clock, the server state", async (t) => {
  const url = await fresh();
  const a = await open(t, url);
  const b = await open(t, url);
  await a.update('x', (tn) => void (tn.carts.c = { uuid: 'c' }));
  await b.sync!('x');
  const changes: number[] = [];
  b.onServerChange!((s) => changes.push(s.clock_offset_ms));
  // The catalog reads an application's clock offset without asking the database: it hears of it.
  await a.update('x', (tn) => void (tn.clock_offset_ms = 3_600_000));
  t.ok(await eventually(() => b.tenant('x').clock_offset_ms === 3_600_000), "the application's clock");
  await a.update('fresh', (tn) => void (tn.clock_offset_ms = 60_000));
  t.ok(await eventually(() => b.tenant('fresh').clock_offset_ms === 60_000), 'also of an application it had not seen');
  await a.updateServer((s) => void (s.clock_offset_ms = 1000));
  t.ok(await eventually(() => b.server().clock_offset_ms === 1000), 'the server state');
  t.same(changes, [1000]);
  // Entries are not announced: the hot path of writes sends no NOTIFY; a sync finds them.
  await a.update('x', (tn) => void (tn.carts.d = { uuid: 'd' }));
  await new Promise((r) => setTimeout(r, 200));
  t.equal(b.tenant('x').carts.d, undefined);
  await b.sync!('x');
  t.ok(b.tenant('x').carts.d);
});

t.test('writes to one application from two instances are serialized: none is lost', async (t) => {
  const url = await fresh();
  const a = await open(t, url);
  const b = await open(t, url);
  const ids = await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      (i % 2 ? a : b).update('shared', (tn) => {
        const id = (tn.counters.order ?? 0) + 1;
        tn.counters.order = id;
        tn.orders[`o${i}`] = { uuid: `o${i}`, id };
        return id;
      }),
    ),
  );
  t.equal(new Set(ids).size, 200, 'every write saw the one before it: no number given twice');
  t.same([...ids].sort((x, y) => x - y), Array.from({ length: 200 }, (_, i) => i + 1));
  for (const s of [a, b]) {
    await s.sync!('shared');
    t.equal(Object.keys(s.tenant('shared').orders).length, 200);
    t.equal(s.tenant('shared').counters.order, 200);
  }
});

t.test('a large record an update only read is not written again; one it changed, or another instance wrote since, is', async (t) => {
  const url = await fresh();
  const a = await open(t, url);
  const b = await open(t, url);
  // 100 items: about 8 KB of JSON, past the size from which a write is remembered (cache.ts).
  const big = () => ({ uuid: 'o1', items: Array.from({ length: 100 }, (_, i) => ({ uuid: `item-${i}`, status: 'PENDING', title: `Item number ${i}` })) });
  const version = async (key: string) => Number((await query(url, "select version from mock_records where app = 'x' and field = 'orders' and key = $1", [key])).rows[0]?.version);
  const stored = async () => (await query(url, "select value from mock_records where app = 'x' and field = 'orders' and key = 'o1'")).rows[0]?.value as ReturnType<typeof big>;
  await a.update('x', (tn) => {
    tn.orders.o1 = big();
    tn.orders.small = { uuid: 'small' };
  });
  const [first, small] = [await version('o1'), await version('small')];

  await a.update('x', (tn) => {
    t.equal(tn.orders.o1?.uuid, 'o1');
    t.equal(tn.orders.small?.uuid, 'small');
    tn.counters.n = 1;
  });
  t.equal(await version('o1'), first, 'the large record only read is not written again');
  t.ok((await version('small')) > small, 'a small one is, as update() writes what it reads');

  await a.update('x', (tn) => void ((tn.orders.o1 as ReturnType<typeof big>).items[0]!.status = 'OK'));
  t.ok((await version('o1')) > first, 'a change inside it is written');
  t.equal((await stored()).items[0]?.status, 'OK');

  // b changes it; a, brought up to date, puts back what it wrote before: that is a change again.
  await b.sync!('x');
  await b.update('x', (tn) => void ((tn.orders.o1 as ReturnType<typeof big>).items[0]!.status = 'B'));
  await a.sync!('x');
  await a.update('x', (tn) => void ((tn.orders.o1 as ReturnType<typeof big>).items[0]!.status = 'OK'));
  t.equal((await stored()).items[0]?.status, 'OK', 'written, though it is what this instance wrote before');

  // b changes it again; a, not brought up to date, sets it to what it wrote last: its write finds
  // the application newer, runs again on b's record, and writes it over b's.
  await b.update('x', (tn) => void ((tn.orders.o1 as ReturnType<typeof big>).items[0]!.status = 'C'));
  const ok = big();
  ok.items[0]!.status = 'OK';
  await a.update('x', (tn) => {
    tn.orders.o1 = structuredClone(ok);
    tn.counters.n = 2;
  });
  t.equal((await stored()).items[0]?.status, 'OK', "a's record is written over b's");
  const r = await open(t, url);
  t.same(r.tenant('x').orders.o1, ok);
  t.equal(r.tenant('x').counters.n, 2);
});

/** Every text this process sends to PostgreSQL, from now until the test ends. */
function sentTexts(t: Test): string[] {
  const sent: string[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const q = args[0] as string | { text?: string; name?: string };
    const text = typeof q === 'string' ? q : (q.text ?? q.name ?? '');
    // Not the heartbeats of presence.ts, which go out every 200 ms whatever the test does, nor the
    // statements prepared once on each new connection (a round takes another one when a heartbeat
    // holds the one it had).
    if (!text.includes('mock_instances') && !text.startsWith('PREPARE')) sent.push(text);
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  t.teardown(() => void (pg.Client.prototype.query = query));
  return sent;
}

t.test('a round that writes rows alone runs the write without its parts for whole fields and due rows; a round with a field replaced whole, the whole write', async (t) => {
  const url = await fresh();
  const a = await open(t, url);
  await a.update('k', (tn) => void ((tn.carts.x = { uuid: 'x' }), (tn.carts.y = { uuid: 'y' })));
  const sent = sentTexts(t);
  await a.update('k', (tn) => void (tn.carts.z = { uuid: 'z' }));
  t.match(sent.at(-1), /EXECUTE mock_write_rows\(/, 'rows alone');
  await a.update('k', (tn) => void (tn.carts = { w: { uuid: 'w' } }));
  t.match(sent.at(-1), /EXECUTE mock_write\(/, 'a field replaced whole');
  const r = await open(t, url);
  t.same(Object.keys(r.tenant('k').carts), ['w'], "the replaced field's old entries are gone");
  await a.update('k', (tn) => void (tn.carts.v = { uuid: 'v' }));
  t.match(sent.at(-1), /EXECUTE mock_write_rows\(/);
  await r.sync!('k');
  t.same(Object.keys(r.tenant('k').carts).sort(), ['v', 'w'], 'a row written alone reaches the other instance');
});

t.test('an update on a current cache is written in one round trip; on a tenant another instance wrote meanwhile, it runs again on the tenant brought up to date', async (t) => {
  const url = await fresh();
  const a = await open(t, url);
  const b = await open(t, url);
  await a.update('k', (tn) => void (tn.counters.n = 1));
  await a.update('m', (tn) => void (tn.counters.n = 1));
  const sent = sentTexts(t);
  const seen: unknown[] = [];
  const bump = (name: string) => (tn: Tenant) => {
    seen.push(tn.counters.n);
    tn.carts[`${name}${seen.length}`] = { uuid: name };
    return (tn.counters.n = (tn.counters.n ?? 0) + 1);
  };
  t.equal(await a.update('k', bump('a')), 2);
  t.same(seen, [1]);
  t.equal(sent.length, 1, 'one round trip');
  t.notMatch(sent[0], /BEGIN|mock_lock/, 'nothing locked before the write');
  t.match(sent[0], /EXECUTE mock_write_rows\(/);

  // b writes k and m; a does not know it yet.
  await b.update('k', (tn) => void ((tn.counters.n = 10), (tn.carts.fromB = { uuid: 'fromB' })));
  await b.update('m', (tn) => void (tn.counters.n = 10));
  sent.length = 0;
  seen.length = 0;
  t.equal(await a.update('k', bump('b')), 11, 'counted on from what b wrote');
  t.same(seen, [2, 10], 'ran on the cache, then again on the tenant brought up to date');
  t.equal(sent.length, 3, 'the write, then a round that locks and reads first (two round trips)');
  t.match(sent[1], /BEGIN[^]*mock_lock[^]*mock_since/);
  t.match(sent[2], /EXECUTE mock_write_rows\([^]*COMMIT/, 'its write found nothing newer this time: written');
  t.same(Object.keys(a.tenant('k').carts).sort(), ['a1', 'b2', 'fromB'], 'the first run (b1) is undone in the cache');
  const r = await open(t, url);
  t.same(Object.keys(r.tenant('k').carts).sort(), ['a1', 'b2', 'fromB'], 'and was never written');
  t.equal(r.tenant('k').counters.n, 11);

  // Found newer: k's next rounds lock and read first, so a write by b meanwhile costs no second run.
  await b.update('k', (tn) => void (tn.counters.n = 20));
  seen.length = 0;
  t.equal(await a.update('k', bump('c')), 21);
  t.same(seen, [20], 'ran once, on the tenant read under the lock');

  // Two applications in one round: m is newer, n is current. n is written once, m runs again.
  await a.update('n', (tn) => void (tn.counters.n = 1));
  seen.length = 0;
  sent.length = 0;
  const both = await Promise.all([a.update('m', bump('m')), a.update('n', bump('n'))]);
  t.same(both, [11, 2]);
  t.same(seen, [1, 1, 10], 'm and n on the cache, then m again');
  t.equal(sent.length, 3, 'one write for both, then m locked, read and written');
  const after = await open(t, url);
  t.same([after.tenant('m').counters.n, after.tenant('n').counters.n], [11, 2]);
  t.same(Object.keys(after.tenant('n').carts), ['n2']);
  t.same(Object.keys(after.tenant('m').carts), ['m3']);
});

/** Polls (every 20 ms, at most 5 s) until the asynchronous `check` holds. */
async function eventuallyAsync(check: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 250; i++) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

t.test('an instance alone on its database reads its cache without asking; an instance that joins acknowledges no write it could miss', async (t) => {
  const url = await fresh();
  const a = await open(t, url);
  await a.update('k', (tn) => void (tn.counters.n = 1));
  const sent = sentTexts(t);
  const silent = async () => {
    sent.length = 0;
    await a.sync!('k');
    return sent.length === 0;
  };
  t.ok(await eventuallyAsync(silent), 'alone, a request on k sends nothing to the database');
  t.equal(a.tenant('k').counters.n, 1);

  // b joins and writes k at once: a still takes itself to be alone for up to a second, so b's write
  // waits for that to run out, and a's next read sees it.
  const b = await open(t, url);
  const started = performance.now();
  await b.update('k', (tn) => void (tn.counters.n = 2));
  const waited = performance.now() - started;
  sent.length = 0;
  await a.sync!('k');
  t.equal(a.tenant('k').counters.n, 2, `a reads what b wrote (b's first write waited ${Math.round(waited)} ms)`);
  t.ok(sent.length > 0, 'a asked where k stands');
  await b.update('k', (tn) => void (tn.counters.n = 3));
  await a.sync!('k');
  t.equal(a.tenant('k').counters.n, 3, 'and keeps asking while b is there');

  // b closes: a is alone again, and reads k once before it takes its cache as is.
  await b.close();
  t.ok(await eventuallyAsync(silent), 'alone again once b is gone');

  // An instance from before the registry (schema 8) does not register: its connection's name is enough.
  const old = new pg.Client({ connectionString: url, application_name: 'mock-server' });
  await old.connect();
  t.teardown(() => old.end());
  t.ok(await eventuallyAsync(async () => !(await silent())), 'not alone beside an instance from before the registry');
});

/**
 * What another instance's heartbeat does to one not heard from for 5 s: every instance taken off the
 * registry, and their own heartbeats held back (they would register them again) until the returned
 * function is called.
 */
async function offTheRegistry(t: Test, url: string): Promise<() => Promise<void>> {
  const held = new pg.Client({ connectionString: url });
  await held.connect();
  t.teardown(() => held.end().catch(() => undefined));
  await held.query(`BEGIN; select pg_advisory_xact_lock(${PRESENCE_LOCK}, 0)`);
  await query(url, 'delete from mock_instances');
  return async () => {
    await held.query('COMMIT');
  };
}

t.test('an instance taken off the registry (frozen or cut off past the expiry) writes nothing until it registers again', async (t) => {
  const url = await fresh();
  const a = await open(t, url);
  await a.update('k', (tn) => void (tn.counters.n = 1));
  const registerAgain = await offTheRegistry(t, url);
  const refused = await a.update('k', (tn) => void (tn.counters.n = 2)).then(
    () => null,
    (e: Error & { statusCode?: number }) => e,
  );
  await registerAgain();
  t.equal(refused?.statusCode, 503, 'answered 503');
  t.match(refused?.message, /away past its registration/);
  t.equal((await query(url, "select value::text as v from mock_records where app = 'k' and field = 'counters' and key = 'n'")).rows[0]?.v, '1', 'nothing written');
  t.ok(await eventuallyAsync(async () => (await query(url, 'select count(*)::int as n from mock_instances')).rows[0].n === 1), 'its next heartbeat registers it again');
  t.equal(await a.update('k', (tn) => (tn.counters.n = 3)), 3, 'and it writes again');
  t.equal((await open(t, url)).tenant('k').counters.n, 3);
});

t.test('a read that shares its round with a write the database refuses is not refused with it', async (t) => {
  const url = await fresh();
  const a = await open(t, url);
  const b = await open(t, url);
  await a.update('k', (tn) => void (tn.counters.n = 1));
  await b.update('j', (tn) => void (tn.counters.n = 1));
  const registerAgain = await offTheRegistry(t, url);
  // Asked in the same turn: one round, the write to k and the read of where j stands.
  const [written, read] = await Promise.allSettled([a.update('k', (tn) => void (tn.counters.n = 2)), a.sync!('j')]);
  await registerAgain();
  t.equal(written.status === 'rejected' && (written.reason as { statusCode?: number }).statusCode, 503, 'the write is refused (503)');
  t.equal(read.status, 'fulfilled', `the read is not: ${read.status === 'rejected' ? (read.reason as Error).message : 'answered'}`);
  t.equal(a.tenant('j').counters.n, 1, "and a reads what b wrote to j");
  t.equal(a.tenant('k').counters.n, 1, 'the refused write is undone');
});

t.test('a connection whose timeout ran out while this process stood still is asked for again, and the database not taken to be away', async (t) => {
  const url = await fresh();
  const pool = new pg.Pool({ connectionString: url, connectionTimeoutMillis: 300 });
  t.teardown(() => pool.end());
  const db = new Db(pool, url);
  // A process frozen (a long GC pause, SIGSTOP) while it opens a connection: on waking, the timeout
  // fires before the database's answer, which came meanwhile, is read.
  const stands = (ms: number) => {
    for (const end = performance.now() + ms; performance.now() < end; );
  };
  await new Promise((r) => setTimeout(r, 150));
  const asked = db.connect().then((c) => (c.release(), 'connected'), (e: Error) => `refused: ${e.message}`);
  stands(1500);
  t.equal(await asked, 'connected');
  const next = await db.connect().then((c) => (c.release(), 'connected'), (e: Error) => `refused: ${e.message}`);
  t.equal(next, 'connected', 'and the next request is not refused as if the database were away');
});

t.test('updates queued behind one transaction share the next (group commit); one that throws fails alone', async (t) => {
  const url = await fresh();
  const s = await open(t, url);
  const results = await Promise.allSettled(
    Array.from({ length: 100 }, (_, i) =>
      s.update('g', (tn) => {
        tn.carts[`c${i}`] = { uuid: `c${i}` };
        tn.counters.n = (tn.counters.n ?? 0) + 1;
        if (i === 50) throw new Error('fifty');
        return i;
      }),
    ),
  );
  t.equal(results.filter((r) => r.status === 'fulfilled').length, 99);
  t.match(results[50], { status: 'rejected', reason: { message: 'fifty' } });
  t.match(results[99], { status: 'fulfilled', value: 99 });
  t.ok(s.stats.flushes <= 3, `100 updates, ${s.stats.flushes} commits`);
  t.equal(s.tenant('g').counters.n, 99, 'the one that threw is undone, not the others');
  const r = await open(t, url);
  t.equal(Object.keys(r.tenant('g').carts).length, 99);
  t.equal(r.tenant('g').counters.n, 99);
  t.equal(r.tenant('g').carts.c50, undefined);
  // A reset between two updates keeps its place: the update before it is dropped, the one after kept.
  const first = s.update('order', (tn) => void (tn.carts.before = { uuid: 'before' }));
  const reset = s.reset('order');
  const after = s.update('order', (tn) => void (tn.carts.after = { uuid: 'after' }));
  await Promise.all([first, reset, after]);
  t.same(Object.keys((await open(t, url)).tenant('order').carts), ['after']);
});

t.test('an update joins the batch whose transaction has not started yet, though its turn has come', async (t) => {
  const url = await fresh();
  const s = await open(t, url);
  await s.update('p', (tn) => void (tn.carts.p = { uuid: 'p' }));
  await s.update('q', (tn) => void (tn.carts.q = { uuid: 'q' }));
  // Both rounds a store runs at once wait for rows locked here; x's batch waits for one of them.
  const blocker = new pg.Client({ connectionString: url });
  await blocker.connect();
  t.teardown(() => blocker.end());
  await blocker.query("BEGIN; select 1 from mock_tenants where app in ('p', 'q') for update");
  const busy = [s.update('p', (tn) => void (tn.carts.p2 = { uuid: 'p2' }))];
  await new Promise((r) => setImmediate(r));
  busy.push(s.update('q', (tn) => void (tn.carts.q2 = { uuid: 'q2' })));
  await new Promise((r) => setImmediate(r));
  const first = s.update('x', (tn) => void (tn.carts.a = { uuid: 'a' }));
  await new Promise((r) => setImmediate(r));
  const second = s.update('x', (tn) => void (tn.carts.b = { uuid: 'b' }));
  await blocker.query('COMMIT');
  await Promise.all([...busy, first, second]);
  const { rows } = await query(url, "select key, version from mock_records where app = 'x' order by key");
  t.equal(rows.length, 2);
  t.equal(rows[0].version, rows[1].version, 'both written by one transaction');
});

t.test('tombstones are pruned; an instance older than the prune reloads the tenant whole', async (t) => {
  const url = await fresh();
  const a = await open(t, url);
  const b = await open(t, url);
  await a.update('p', (tn) => void (tn.carts.keep = { uuid: 'keep' }));
  await b.sync!('p');
  // 450 writes, each creating one cart and deleting the one before: two prunes (every 200 writes).
  for (let i = 0; i < 450; i++) {
    await a.update('p', (tn) => {
      delete tn.carts[`c${i - 1}`];
      tn.carts[`c${i}`] = { uuid: `c${i}` };
    });
  }
  const rows = (await query(url, "select count(*) filter (where value is null)::int as dead, (select pruned_version from mock_tenants where app = 'p')::int as pruned from mock_records where app = 'p'")).rows[0];
  // A prune (at writes 200 and 400) drops the tombstones older than the prune before it.
  t.ok(rows.dead > 0 && rows.dead <= 251, `tombstones of the last writes only: ${rows.dead} of 450 left`);
  t.ok(rows.pruned > 0, 'pruned_version tells older caches to reload');
  await b.sync!('p');
  t.same(Object.keys(b.tenant('p').carts).sort(), ['c449', 'keep'], 'the old cache caught up whole');
  await a.update('p', (tn) => void delete tn.carts.keep);
  await b.sync!('p');
  t.same(Object.keys(b.tenant('p').carts), ['c449'], 'and incrementally after that');
});

t.test('a prune finds the tombstones by their own index, not among the live rows', async (t) => {
  const url = await fresh();
  const s = await open(t, url);
  await s.update('p', (tn) => {
    for (let i = 0; i < 5000; i++) tn.carts[`c${i}`] = { uuid: `c${i}` };
  });
  for (let i = 0; i < 10; i++) await s.update('p', (tn) => void delete tn.carts[`c${i}`]);
  await query(url, 'analyze mock_records');
  const [plan] = (await query(url, `explain (format json) ${SQL.pruned("'p'")}`)).rows[0]['QUERY PLAN'];
  t.match(JSON.stringify(plan), /"Index Name":"mock_records_tombstones"/);
});

t.test('a claim takes its leases without touching the indexes of mock_due: its pages keep room for that (schema 10)', async (t) => {
  const url = await fresh();
  await (await createStore(url)).close();
  // As a burst's deliveries are: each its own chain (an order item's), due now.
  await query(url, "insert into mock_due (app, kind, key, due_at, chain, rank) select 'p', 'webhook', 'whd_' || md5(i::text), 0, md5(i::text), 1 from generate_series(1, 1000) i");
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  t.teardown(() => c.end());
  await c.query('BEGIN');
  const claimed = await c.query(DUE_SQL.claim.text, ['webhook', 1000, 1000, randomUUID(), 30_000, 'deliveries']);
  const { rows } = await c.query("select pg_stat_get_xact_tuples_updated('mock_due'::regclass) as updated, pg_stat_get_xact_tuples_hot_updated('mock_due'::regclass) as hot");
  await c.query('ROLLBACK');
  t.equal(claimed.rowCount, 1000);
  t.equal(Number(rows[0].updated), 1000);
  // A page left 60% free holds a new version of nearly each of its rows (a lease makes a row larger); a full one, of none.
  t.ok(Number(rows[0].hot) >= 950, `${rows[0].hot} of 1000 leases taken as HOT updates`);
});

t.test('a write that drops many due rows finds each by its key, though its plan was made on a new database', async (t) => {
  const url = await fresh();
  const s = await open(t, url);
  s.due!.rule({ field: 'carts', kind: 'test', due: () => ({ at: 0 }) });
  // The write's plan is made at this first write, while mock_due is empty and was never analyzed.
  await s.update('p', (tn) => void (tn.carts.c = { uuid: 'c' }));
  await s.update('p', (tn) => {
    for (let i = 0; i < 900; i++) tn.carts[`c${i}`] = { uuid: `c${i}` };
  });
  await s.update('p', (tn) => {
    for (let i = 0; i < 900; i++) delete tn.carts[`c${i}`];
  });
  t.equal(Number((await query(url, "select count(*) from mock_due where kind = 'test'")).rows[0].count), 1);
  // The store's backend reports its counts once idle: at once, or within 10 s when it reported less than a second before.
  const counts = async () => (await query(url, "select n_tup_del, coalesce(seq_tup_read, 0) as seq from pg_stat_user_tables where relname = 'mock_due'")).rows[0];
  let c = await counts();
  for (let i = 0; i < 300 && Number(c.n_tup_del) < 900; i++) c = (await new Promise((r) => setTimeout(r, 50)), await counts());
  t.equal(Number(c.n_tup_del), 900);
  // A plan that scans the table for each row it drops reads 900 x 900 rows.
  t.ok(Number(c.seq) < 900, `${c.seq} rows of mock_due read by scans`);
});

t.test('two stores starting at once on an empty database create the tables once', async (t) => {
  const url = await fresh();
  const [a, b] = await Promise.all([createStore(url), createStore(url)]);
  t.teardown(() => Promise.all([a.close(), b.close()]));
  t.same((await query(url, 'select version from mock_schema_version')).rows, [{ version: SCHEMA_VERSION }]);
  await a.update('x', (tn) => void (tn.carts.c = { uuid: 'c' }));
  await b.sync!('x');
  t.ok(b.tenant('x').carts.c);
});

t.test('a database of a newer mock-server, or one that cannot be reached, is refused in one line without the password', async (t) => {
  const url = await fresh();
  await (await createStore(url)).close();
  await query(url, 'insert into mock_schema_version values (99)');
  const password = new URL(url).password;
  const newer = await createStore(url).catch((e: Error) => e);
  t.ok(newer instanceof StoreError, 'a StoreError: exit 2 in the CLI');
  t.match((newer as Error).message, /newer mock-server \(schema version 99/);
  t.notMatch((newer as Error).message, password);
  const wrong = new URL(server.url);
  wrong.password = 'not-the-password';
  const denied = (await createStore(wrong.href).catch((e: Error) => e)) as Error;
  t.ok(denied instanceof StoreError);
  t.match(denied.message, /password authentication failed/);
  t.notMatch(denied.message, 'not-the-password');
  const away = new URL(server.url);
  away.port = '1';
  const started = Date.now();
  const refused = (await createStore(away.href).catch((e: Error) => e)) as Error;
  t.ok(refused instanceof StoreError);
  t.match(refused.message, /^Cannot use the database postgres:\/\/mock:\*\*\*@127\.0\.0\.1:1\/mock: .*ECONNREFUSED/);
  t.notMatch(refused.message, password);
  t.ok(Date.now() - started < 5000, 'at once');
});

t.test('a URL shown or echoed in an error keeps no password, encoded or not', async (t) => {
  const url = 'postgres://user:p%40ss%3Aword@db.example:5433/mock?sslmode=require';
  t.equal(redactUrl(url), 'postgres://user:***@db.example:5433/mock?sslmode=require');
  t.equal(redactUrl('postgresql://db.example/mock'), 'postgresql://db.example/mock', 'nothing to hide');
  t.equal(scrub(`failed for ${url}: password "p@ss:word" refused (p%40ss%3Aword)`, url), 'failed for postgres://user:***@db.example:5433/mock?sslmode=require: password "***" refused (***)');
  t.equal(redactUrl('postgres://[bad'), 'postgres://…', 'an unparsable URL shows no more than its scheme');
});
