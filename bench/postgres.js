// PostgreSQL beside the file store, in one run, on state that already holds 10,000 orders: the
// booking flow (20 clients end to end: bookings/s and the p99 of each step) and a webhook burst
// (1,000 items moved at once: 10 orders of 100 items, a scenario run each; deliveries/s to a lean
// receiver), on the file store, on PostgreSQL with one instance, and with two instances on the same
// database taking the requests in turn (a round robin, as a load balancer sends them). The booking
// flow runs twice: every client in one application (its writes are serialized, on any store), and
// the clients spread over 20 applications (a shared sandbox's usual load), the latter with two
// instances also as a balancer hashing the application header sends it. Every server
// is a real CLI process. PostgreSQL is the one the tests start (test/pg/server.ts: initdb in a temp
// folder, 127.0.0.1, a free port), with fsync on, so that a commit waits for the disk as the file
// store's writes do. Run alone: `npm run build && node bench/run.js postgres`.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import pgDriver from 'pg';
import { bookings, p99 } from './booking.js';
import { APP_HEADER, freePort, httpClient, load, root, startProcess, stop } from './lib.js';
import { preload } from './store.js';
import { receiver } from './webhooks.js';

const APP = 'bench';
const CONFIRM = '0f5821c5-2046-11e7-9cc9-06a7e332783f';
const LEAD = { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', musement_newsletter: 'NO', allow_profiling: 'NO', thirdparty_newsletter: 'NO', events_related_newsletter: 'NO' };
const ITEMS = 1000;
const ROUNDS = Number(process.env.BENCH_PG_BURSTS ?? 3);
const cli = join(root, 'dist/bin/mock-server.js');

/**
 * The tests' PostgreSQL starter and the store, built for this plain-JS process (the tests run them
 * as TypeScript through tap) into node_modules/.cache.
 */
async function loadPg() {
  const dir = join(root, 'node_modules/.cache/mock-server-bench');
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, 'pg.mjs');
  const contents = "export { startPostgres } from './test/pg/server.ts'; export { createStore } from './src/store/index.ts';";
  await build({ stdin: { contents, resolveDir: root, loader: 'ts' }, bundle: true, platform: 'node', format: 'esm', packages: 'external', outfile, logLevel: 'error' });
  return import(pathToFileURL(outfile).href);
}

/** The file store's 10,000 orders (store.js preload), written into the database through the store. */
async function preloadDatabase(createStore, url) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-pg-'));
  const file = join(dir, 'state.json');
  preload(file);
  const tenant = JSON.parse(readFileSync(file, 'utf8')).tenants[APP];
  rmSync(dir, { recursive: true, force: true });
  const store = await createStore(url);
  const uuids = Object.keys(tenant.orders);
  for (let i = 0; i < uuids.length; i += 1000) {
    await store.update(APP, (t) => {
      for (const u of uuids.slice(i, i + 1000)) {
        const order = tenant.orders[u];
        t.orders[u] = order;
        t.carts[order.cart_uuid] = tenant.carts[order.cart_uuid];
      }
    });
  }
  await store.update(APP, (t) => void (t.counters.order = tenant.counters.order));
  await store.close();
  return uuids.length;
}

/** `count` CLI servers on `db` (the CLI at `bin`: this checkout's, or another's); resolves with their origins and a stop(). */
async function servers(db, count, extra = [], bin = cli) {
  const started = [];
  try {
    for (let i = 0; i < count; i++) {
      const port = await freePort();
      const origin = `http://127.0.0.1:${port}`;
      const { child } = await startProcess(bin, ['--port', String(port), '--db', db, '--catalog-size', '20', '--log-level', 'warn', ...extra], `${origin}/__admin/health`);
      started.push({ child, origin });
    }
  } catch (e) {
    await Promise.all(started.map((s) => stop(s.child)));
    throw e;
  }
  return { origins: started.map((s) => s.origin), pids: started.map((s) => s.child.pid), stop: () => Promise.all(started.map((s) => stop(s.child))) };
}

/** The fields after the command of /proc/<pid>/stat, or null when the process is gone. */
function stat(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return s.slice(s.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/**
 * CPU time (user + system, ms) used so far by the processes `pids`, or by the PostgreSQL server
 * whose postmaster is `postmaster`: it, its live backends, and the backends it has reaped (its
 * children's time). Other PostgreSQL servers on this shared machine are not counted.
 */
function cpuMs({ pids, postmaster }) {
  const own = (f) => (f ? Number(f[11]) + Number(f[12]) : 0);
  if (pids) return pids.reduce((n, pid) => n + own(stat(pid)), 0) * 10; // USER_HZ is 100
  const main = stat(postmaster);
  const children = readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(stat).filter((f) => f && Number(f[1]) === postmaster);
  return (own(main) + (main ? Number(main[13]) + Number(main[14]) : 0) + children.reduce((n, f) => n + own(f), 0)) * 10;
}

/** What the database did so far: transactions and rows written. */
async function dbWork(url) {
  const c = new pgDriver.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query(
      "select xact_commit + xact_rollback as xacts, tup_inserted + tup_updated + tup_deleted as written, pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0') as wal from pg_stat_database where datname = current_database()",
    );
    return { xacts: Number(rows[0].xacts), written: Number(rows[0].written), wal: Number(rows[0].wal) };
  } finally {
    await c.end();
  }
}

/**
 * 1,000 items moved at once: 10 orders of 100 items booked, then a scenario run per order asked for
 * together, the calls in turn across `origins`. Deliveries per second from the first run call to
 * the last arrival at the lean receiver. On PostgreSQL, also what the burst cost (from the run calls
 * to the last arrival, plus the pause pg_stat_database needs): CPU of the mock servers and of
 * PostgreSQL, transactions, and (BENCH_PG_STATEMENTS=1) its statements.
 */
async function burst(db, count, postmaster, admin) {
  const onPg = db.startsWith('postgres');
  const hook = await receiver(false, 'lean');
  const srv = await servers(db, count, ['--webhook-url', `http://127.0.0.1:${hook.port}/hook`]);
  const headers = { 'x-service-application': APP, 'content-type': 'application/json' };
  const pool = srv.origins.map((o) => httpClient(o, headers, { connections: 50 }));
  let turn = 0;
  const call = async (method, path, body) => {
    const { status, text } = await pool[turn++ % pool.length].request(method, path, body);
    if (status >= 300) throw new Error(`${method} ${path}: ${status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
  try {
    await call('POST', '/__admin/clock', { set: '2026-01-15T10:00:00Z' });
    const token = await call('POST', '/api/v3/login', { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' });
    headers.authorization = `Bearer ${token.access_token}`;
    const orders = [];
    for (let k = 0; k < ITEMS / 100; k++) {
      const items = [];
      // At most 50 per slot and request (its availability): two days per order.
      for (const d of [2 * k, 2 * k + 1]) {
        const day = new Date(Date.UTC(2026, 0, 20 + d)).toISOString().slice(0, 10);
        const [s] = await call('GET', `/api/v3/activities/${CONFIRM}/dates/${day}`);
        for (let i = 0; i < 50; i++) items.push({ product_identifier: s.groups[0].slots[0].products[0].product_id, quantity: 1, language: 'en' });
      }
      const cart = await call('POST', '/api/v3/carts');
      await call('POST', `/api/v3/carts/${cart.uuid}/items`, items);
      await call('PUT', `/api/v3/carts/${cart.uuid}/customer`, LEAD);
      const order = await call('POST', '/api/v3/orders', { cart_uuid: cart.uuid });
      await call('POST', '/api/v3/payments/no/payment', { uuid: order.uuid });
      orders.push(order.uuid);
    }
    if (onPg && admin) await adminQuery(admin, 'select pg_stat_statements_reset()');
    const before = { mock: cpuMs({ pids: srv.pids }), pg: onPg ? cpuMs({ postmaster }) : 0, db: onPg ? await dbWork(db) : null };
    const start = performance.timeOrigin + performance.now();
    await Promise.all(orders.map((uuid) => call('POST', '/__admin/scenarios/instant-confirmation/run', { order_uuid: uuid })));
    const deadline = Date.now() + 60_000;
    while (hook.arrivals.size < ITEMS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    const last = Math.max(...hook.arrivals.values());
    const r = { delivered: hook.arrivals.size, deliveries_per_s: hook.arrivals.size / ((last - start) / 1000), burst_ms: last - start, sent_twice: hook.dup(), mock_cpu_ms: cpuMs({ pids: srv.pids }) - before.mock };
    if (!onPg) return r;
    r.pg_cpu_ms = cpuMs({ postmaster }) - before.pg;
    await new Promise((res) => setTimeout(res, 1000));
    r.xacts = (await dbWork(db)).xacts - before.db.xacts;
    if (admin) await printStatements(admin, 1, `webhook burst, ${count} instance(s)`, 'per burst');
    return r;
  } finally {
    for (const c of pool) c.close();
    await srv.stop();
    hook.server.close();
  }
}

/**
 * With BENCH_PG_STATEMENTS=1, PostgreSQL keeps pg_stat_statements (a restart, before any data):
 * each booking run then prints its statements per booking, by time, with their execution and
 * planning time per booking and the buffers each call touched. Off by default: it costs CPU itself.
 */
const STATEMENTS = process.env.BENCH_PG_STATEMENTS === '1';

async function adminQuery(url, sql) {
  const c = new pgDriver.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql)).rows;
  } finally {
    await c.end();
  }
}

async function keepStatements(pg, url) {
  await adminQuery(pg.adminUrl, "alter system set shared_preload_libraries = 'pg_stat_statements'");
  await adminQuery(pg.adminUrl, 'alter system set pg_stat_statements.track_planning = on');
  await pg.stopServer('fast');
  await pg.startServer();
  await adminQuery(asAdmin(pg, url), 'create extension if not exists pg_stat_statements');
}

/** `url` (the mock user's database) as the superuser, who may read and reset every statement's figures. */
const asAdmin = (pg, url) => url.replace(/\/\/[^@]*@/, pg.adminUrl.match(/\/\/[^@]*@/)[0]);

/** The statements run since the last reset, the costliest first, divided by `count` (bookings; 1 for a burst). */
async function printStatements(admin, count, title, unit = `per booking (${count} bookings)`) {
  const rows = await adminQuery(admin, `select calls, total_exec_time as exec_ms, total_plan_time as plan_ms, shared_blks_hit + shared_blks_read as blocks,
    left(regexp_replace(query, '\\s+', ' ', 'g'), 110) as query from pg_stat_statements
    where dbid = (select oid from pg_database where datname = current_database()) and calls > 0 order by total_exec_time + total_plan_time desc limit 12`);
  console.log(`\n${title}: statements ${unit}`);
  for (const r of rows) {
    const per = (x) => (x / count).toFixed(3);
    console.log(`  ${per(r.calls)} calls, ${per(r.exec_ms)} ms run, ${per(r.plan_ms)} ms planning, ${(r.blocks / r.calls).toFixed(0)} buffers a call | ${r.query}`);
  }
}

/**
 * The booking flow on `count` servers. On PostgreSQL, also where the time went, per booking: CPU of
 * the mock servers and of this PostgreSQL server (its postmaster and backends), transactions and
 * rows written (pg_stat_database, whose counts reach it within a second: read after a pause).
 */
async function booking(db, count, duration, applications = 0, sticky = false, postmaster = 0, admin = null) {
  const srv = await servers(db, count);
  const onPg = db.startsWith('postgres');
  try {
    if (admin) await adminQuery(admin, 'select pg_stat_statements_reset()');
    const before = { mock: cpuMs({ pids: srv.pids }), pg: onPg ? cpuMs({ postmaster }) : 0, db: onPg ? await dbWork(db) : null };
    const r = await bookings(srv.origins.map((o) => `${o}/api/v3`), { duration, applications, sticky });
    const mock = cpuMs({ pids: srv.pids }) - before.mock;
    if (!onPg) return { ...r, mock_cpu_ms_per_booking: mock / r.bookings };
    const pgCpu = cpuMs({ postmaster }) - before.pg;
    await new Promise((res) => setTimeout(res, 1000));
    const after = await dbWork(db);
    if (admin) await printStatements(admin, r.bookings, `${count} instance(s), ${applications || 1} application(s)${sticky ? ', hashed' : ''}`);
    return { ...r, mock_cpu_ms_per_booking: mock / r.bookings, pg_cpu_ms_per_booking: pgCpu / r.bookings, xacts_per_booking: (after.xacts - before.db.xacts) / r.bookings, rows_written_per_booking: (after.written - before.db.written) / r.bookings };
  } finally {
    await srv.stop();
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Booking rounds (BENCH_PG_BOOKING_ROUNDS, default 5) of the rows the targets name. */
const BOOKING_ROUNDS = Number(process.env.BENCH_PG_BOOKING_ROUNDS ?? 5);

/**
 * The booking flow on the file store and on PostgreSQL (one instance each, both started first, and a
 * second of each unmeasured), in short runs by rounds, each server once a round in an order that
 * turns: this machine's speed drifts (the file store alone ran anywhere from 159 to 689 bookings/s
 * in one morning), and a drift then falls on both. Each server's bookings/s and CPU per booking over all its runs, the p99 of each
 * step over all of them, and per round the ratio of PostgreSQL to the file store, with their median.
 */
async function bookingRounds(file, url, duration, applications, postmaster, admin) {
  const srv = { file: await servers(file, 1), pg: await servers(url, 1) };
  const seconds = Math.max(2, Math.round(duration / 2.5));
  const sum = { file: { bookings: 0, seconds: 0, errors: 0, mock: 0, times: {} }, pg: { bookings: 0, seconds: 0, errors: 0, mock: 0, pg: 0, xacts: 0, written: 0, wal: 0, times: {} } };
  const rates = { file: [], pg: [] };
  try {
    // Unmeasured, so that the first round's first run is not also each server's first.
    for (const name of ['file', 'pg']) await bookings(srv[name].origins.map((o) => `${o}/api/v3`), { duration: 1, applications });
    if (admin) await adminQuery(admin, 'select pg_stat_statements_reset()');
    for (let i = 0; i < BOOKING_ROUNDS; i++) {
      for (const name of i % 2 ? ['pg', 'file'] : ['file', 'pg']) {
        const onPg = name === 'pg';
        const before = { mock: cpuMs({ pids: srv[name].pids }), pg: onPg ? cpuMs({ postmaster }) : 0, db: onPg ? await dbWork(url) : null };
        const r = await bookings(srv[name].origins.map((o) => `${o}/api/v3`), { duration: seconds, applications });
        const s = sum[name];
        s.mock += cpuMs({ pids: srv[name].pids }) - before.mock;
        if (onPg) {
          s.pg += cpuMs({ postmaster }) - before.pg;
          await new Promise((res) => setTimeout(res, 1000)); // pg_stat_database's counts reach it within a second
          const after = await dbWork(url);
          s.xacts += after.xacts - before.db.xacts;
          s.written += after.written - before.db.written;
          s.wal += after.wal - before.db.wal;
        }
        s.bookings += r.bookings;
        s.seconds += r.seconds;
        s.errors += r.errors;
        for (const [step, xs] of Object.entries(r.times)) (s.times[step] ??= []).push(...xs);
        rates[name].push(r.bookings_per_s);
      }
    }
    if (admin) await printStatements(admin, sum.pg.bookings, `one instance, ${applications || 1} application(s)`);
  } finally {
    await Promise.all([srv.file.stop(), srv.pg.stop()]);
  }
  const row = (s) => ({
    bookings_per_s: s.bookings / s.seconds,
    bookings: s.bookings,
    errors: s.errors,
    mock_cpu_ms_per_booking: s.mock / s.bookings,
    ...(s.pg === undefined ? {} : { pg_cpu_ms_per_booking: s.pg / s.bookings, xacts_per_booking: s.xacts / s.bookings, rows_written_per_booking: s.written / s.bookings, wal_kb_per_booking: s.wal / 1024 / s.bookings }),
    p99: Object.fromEntries(Object.entries(s.times).map(([step, xs]) => [step, p99(xs)])),
  });
  const ratios = rates.pg.map((r, i) => r / rates.file[i]);
  return { file: row(sum.file), pg: row(sum.pg), ratio: { ratio: median(ratios), each_round: ratios.map((r) => r.toFixed(2)).join(' ') } };
}

/** Catalog rounds (BENCH_PG_CATALOG_ROUNDS, default 7): each server once a round. */
const CATALOG_ROUNDS = Number(process.env.BENCH_PG_CATALOG_ROUNDS ?? 7);

/**
 * Catalog reads (`GET /activities/{uuid}`, the catalog's uuids rotating, 50 connections) on the file
 * store, on PostgreSQL, and on a second file store (its own copy of the state): the file store
 * against itself is the noise of the way it is measured. Short runs in rounds, each server once a
 * round in an order that turns, so that the machine's drift falls on all three; per round the
 * ratio of each to the first file store, and their median. The catalog never asks the store, but
 * every read is journalled, and on PostgreSQL the journal is in the database: the CPU per 1,000
 * reads of the mock and of PostgreSQL (in each run and the half second after it, when the last
 * batch is written; PostgreSQL's during the file stores' runs is its background) and the
 * transactions and rows written per read (pg_stat_database, over all the rounds) show what the
 * database does for them, and the bench process's (autocannon) what the load generator does.
 */
async function catalogReads(file, url, duration, postmaster, admin) {
  const copy = join(dirname(file), 'copy.json');
  copyFileSync(file, copy);
  const names = ['file', 'pg', 'file2'];
  const srv = {};
  try {
    for (const [name, db] of [['file', file], ['pg', url], ['file2', copy]]) srv[name] = await servers(db, 1);
    const res = await fetch(`${srv.file.origins[0]}/api/v3/activities?limit=100`, { headers: APP_HEADER });
    const paths = (await res.json()).data.map((x) => `/api/v3/activities/${x.uuid}`);
    for (const name of names) await load(srv[name].origins[0], paths, { duration: 2 });
    if (admin) await adminQuery(admin, 'select pg_stat_statements_reset()');
    const work = await dbWork(url);
    const seconds = Math.max(2, Math.round(duration / 4));
    const runs = Object.fromEntries(names.map((n) => [n, []]));
    const own = () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1000;
    };
    for (let round = 0; round < CATALOG_ROUNDS; round++) {
      for (let k = 0; k < names.length; k++) {
        const name = names[(round + k) % names.length];
        const cpu = () => ({ mock: cpuMs({ pids: srv[name].pids }), pg: cpuMs({ postmaster }), gen: own() });
        const before = cpu();
        const r = await load(srv[name].origins[0], paths, { duration: seconds });
        await new Promise((res) => setTimeout(res, 500));
        const after = cpu();
        runs[name].push({ rps: r.rps, reads: r.total, ...Object.fromEntries(Object.keys(before).map((x) => [x, after[x] - before[x]])) });
      }
    }
    const ratios = (name) => runs[name].map((r, i) => r.rps / runs.file[i].rps);
    const reads = runs.pg.reduce((n, r) => n + r.reads, 0);
    await new Promise((res) => setTimeout(res, 1000));
    const done = await dbWork(url);
    if (admin) await printStatements(admin, reads / 1000, 'catalog reads', 'per 1,000 reads');
    const each = (xs) => xs.map((x) => x.toFixed(2)).join(' ');
    const per1000 = (name, x) => (1000 * runs[name].reduce((n, r) => n + r[x], 0)) / runs[name].reduce((n, r) => n + r.reads, 0);
    return {
      file_rps: median(runs.file.map((r) => r.rps)),
      pg_rps: median(runs.pg.map((r) => r.rps)),
      ratio: median(ratios('pg')),
      each_round: each(ratios('pg')),
      file_store_ratio_to_itself: median(ratios('file2')),
      to_itself_each_round: each(ratios('file2')),
      pg_cpu_ms_per_1000: per1000('pg', 'pg'),
      pg_cpu_ms_per_1000_beside_file: per1000('file', 'pg'),
      pg_transactions_per_1000: (1000 * (done.xacts - work.xacts)) / reads,
      pg_rows_written_per_read: (done.written - work.written) / reads,
      pg_wal_bytes_per_read: (done.wal - work.wal) / reads,
      mock_cpu_ms_per_1000_pg: per1000('pg', 'mock'),
      mock_cpu_ms_per_1000_file: per1000('file', 'mock'),
      autocannon_cpu_ms_per_1000: per1000('file', 'gen'),
    };
  } finally {
    await Promise.all(Object.values(srv).map((s) => s.stop()));
  }
}

/**
 * Two builds side by side on PostgreSQL (BENCH_PG_ROWS=ab): the booking flow on the CLI of
 * BENCH_PG_AB_A and of BENCH_PG_AB_B (each the folder of a built checkout; by default this one, which
 * makes an A/A run: the noise of the method), each on a database of its own holding the same 10,000
 * orders, in 8 rounds (BENCH_PG_AB_ROUNDS) of 3 s each, the order turning every round, each build on
 * each database for half of them, in one application (BENCH_PG_AB_APPS=20: spread over 20). The row
 * gives the median of the rounds' ratios B / A and each round's, and each build's median bookings/s
 * and CPU a booking over its runs (its mock server's; PostgreSQL's while it ran: the other build,
 * idle meanwhile, adds its heartbeats). A change smaller than the machine's drift shows here where
 * the whole section's rows cannot: both builds meet the same drift.
 */
async function abRows(createStore, pg, duration) {
  const urls = [await pg.createDatabase('bench_a'), await pg.createDatabase('bench_b')];
  for (const url of urls) await preloadDatabase(createStore, url);
  const postmaster = Number(readFileSync(join(pg.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const bin = (dir) => (dir ? join(dir, 'dist/bin/mock-server.js') : cli);
  const bins = { a: bin(process.env.BENCH_PG_AB_A), b: bin(process.env.BENCH_PG_AB_B) };
  const applications = Number(process.env.BENCH_PG_AB_APPS ?? 0);
  const rounds = Number(process.env.BENCH_PG_AB_ROUNDS ?? 8);
  const sum = { a: { rates: [], bookings: 0, mock: 0, pg: 0 }, b: { rates: [], bookings: 0, mock: 0, pg: 0 } };
  // Each build on each database for half the rounds: neither's place (its database, started first) weighs on one side.
  for (const half of [0, 1]) {
    const srv = { a: await servers(urls[half], 1, [], bins.a), b: await servers(urls[1 - half], 1, [], bins.b) };
    const run = (k, seconds) => bookings(srv[k].origins.map((o) => `${o}/api/v3`), { duration: seconds, applications });
    try {
      for (const k of ['a', 'b']) await run(k, 1);
      for (let i = 0; i < rounds / 2; i++) {
        for (const k of i % 2 ? ['b', 'a'] : ['a', 'b']) {
          const before = { mock: cpuMs({ pids: srv[k].pids }), pg: cpuMs({ postmaster }) };
          const r = await run(k, Math.max(2, Math.round(duration * 0.3)));
          Object.assign(sum[k], { bookings: sum[k].bookings + r.bookings, mock: sum[k].mock + cpuMs({ pids: srv[k].pids }) - before.mock, pg: sum[k].pg + cpuMs({ postmaster }) - before.pg });
          sum[k].rates.push(r.bookings_per_s);
        }
      }
    } finally {
      await Promise.all([srv.a.stop(), srv.b.stop()]);
    }
  }
  const ratios = sum.b.rates.map((r, i) => r / sum.a.rates[i]);
  const cost = (k) => `${median(sum[k].rates).toFixed(1)}/s, CPU a booking: mock ${(sum[k].mock / sum[k].bookings).toFixed(2)} ms, PostgreSQL ${(sum[k].pg / sum[k].bookings).toFixed(2)} ms`;
  return { [`booking flow, ${applications || 1} application(s), B / A`]: { a: cost('a'), b: cost('b'), ratio: median(ratios), each_round: ratios.map((r) => r.toFixed(2)).join(' ') } };
}

/**
 * BENCH_PG_ROWS=burst: the webhook burst's rows alone (its file store and PostgreSQL runs in turn, as
 * in the full run); BENCH_PG_ROWS=catalog: the catalog reads' row alone; BENCH_PG_ROWS=booking: the
 * booking flow's one-instance rows alone; BENCH_PG_ROWS=ab: two builds side by side (abRows).
 */
const ROWS = process.env.BENCH_PG_ROWS;
const CATALOG_ROW = 'catalog reads, GET /activities/{uuid}, PostgreSQL (one instance) / file store';

function burstRows(runs) {
  const hooks = (rs) => ({ delivered: Math.min(...rs.map((r) => r.delivered)), deliveries_per_s: median(rs.map((r) => r.deliveries_per_s)), each_round: rs.map((r) => r.deliveries_per_s.toFixed(0)).join(' '), sent_twice: Math.max(...rs.map((r) => r.sent_twice)), ...Object.fromEntries(['mock_cpu_ms', 'pg_cpu_ms', 'xacts'].filter((k) => k in rs[0]).map((k) => [`median_${k}`, median(rs.map((r) => r[k]))])) });
  return {
    [`webhook burst (1,000 items at once), file store, median of ${ROUNDS}`]: hooks(runs.file),
    [`webhook burst, PostgreSQL, one instance, median of ${ROUNDS}`]: hooks(runs.pg1),
    [`webhook burst, PostgreSQL, two instances, median of ${ROUNDS}`]: hooks(runs.pg2),
    'webhook burst, PostgreSQL one instance / file store': { ratio: hooks(runs.pg1).deliveries_per_s / hooks(runs.file).deliveries_per_s },
  };
}
const flat = ({ p99: steps, times: _times, seconds: _seconds, ...r }) => ({ ...r, ...Object.fromEntries(Object.entries(steps).map(([k, v]) => [`p99_${k}_ms`, v])) });

export async function run({ duration = 10 } = {}) {
  const { startPostgres, createStore } = await loadPg();
  const dir = mkdtempSync(join(tmpdir(), 'bench-pg-file-'));
  const pg = await startPostgres(undefined, { durable: process.env.BENCH_PG_FSYNC !== 'off' });
  try {
    if (ROWS === 'ab') return await abRows(createStore, pg, duration);
    const file = join(dir, 'state.json');
    preload(file);
    const url = await pg.createDatabase('bench');
    if (STATEMENTS) await keepStatements(pg, url);
    const admin = STATEMENTS ? asAdmin(pg, url) : null;
    const postmaster = Number(readFileSync(join(pg.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const orders = await preloadDatabase(createStore, url);
    const runs = { file: [], pg1: [], pg2: [] };
    const booked = {};
    if (ROWS === 'catalog') return { [CATALOG_ROW]: await catalogReads(file, url, duration, postmaster, admin) };
    if (ROWS === 'burst') {
      for (let i = 0; i < ROUNDS; i++) for (const [k, db, n] of [['file', file, 1], ['pg1', url, 1], ['pg2', url, 2]]) runs[k].push(await burst(db, n, postmaster, admin));
      return burstRows(runs);
    }
    if (ROWS === 'booking') {
      const one = await bookingRounds(file, url, duration, 0, postmaster, admin);
      const twenty = await bookingRounds(file, url, duration, 20, postmaster, admin);
      return {
        'booking flow, file store': flat(one.file),
        'booking flow, PostgreSQL, one instance': flat(one.pg),
        'PostgreSQL one instance / file store, bookings/s': one.ratio,
        'booking flow, 20 applications, file store': flat(twenty.file),
        'booking flow, 20 applications, PostgreSQL, one instance': flat(twenty.pg),
        'PostgreSQL one instance / file store in 20 applications, bookings/s': twenty.ratio,
      };
    }
    // The three in turn, so that the machine's drift is shared; the booking flow once each (its
    // load adds orders: the database holds 10,000 more at the end), the burst ROUNDS times.
    const catalog = await catalogReads(file, url, duration, postmaster, admin);
    const one = await bookingRounds(file, url, duration, 0, postmaster, admin);
    booked.pg2 = await booking(url, 2, duration, 0, false, postmaster, admin);
    const twenty = await bookingRounds(file, url, duration, 20, postmaster, admin);
    booked.pg2x20 = await booking(url, 2, duration, 20, false, postmaster, admin);
    booked.pg2sticky = await booking(url, 2, duration, 20, true, postmaster, admin);
    for (let i = 0; i < ROUNDS; i++) {
      runs.file.push(await burst(file, 1, postmaster, admin));
      runs.pg1.push(await burst(url, 1, postmaster, admin));
      runs.pg2.push(await burst(url, 2, postmaster, admin));
    }
    return {
      [`booking flow, 20 clients, file store holding ${orders} orders`]: flat(one.file),
      [`booking flow, PostgreSQL (fsync on) holding ${orders} orders, one instance`]: flat(one.pg),
      'booking flow, PostgreSQL, two instances taking requests in turn': flat(booked.pg2),
      'PostgreSQL one instance / file store, bookings/s': one.ratio,
      'booking flow, 20 clients in 20 applications, file store': flat(twenty.file),
      'booking flow, 20 applications, PostgreSQL, one instance': flat(twenty.pg),
      'booking flow, 20 applications, PostgreSQL, two instances in turn': flat(booked.pg2x20),
      'booking flow, 20 applications, PostgreSQL, two instances, each application on one (hashed)': flat(booked.pg2sticky),
      [CATALOG_ROW]: catalog,
      'PostgreSQL one instance / file store in 20 applications, bookings/s': twenty.ratio,
      ...burstRows(runs),
    };
  } finally {
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
