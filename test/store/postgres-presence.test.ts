// The CLI as real processes on one PostgreSQL, around the registry of instances (presence.ts): an
// instance alone on the database skips the read before each request, so one frozen (SIGSTOP, standing
// in for a long GC pause or a frozen VM) while alone must read first when it wakes, whether it was
// frozen past the expiry (then taken off the registry, its writes refused until it registers again)
// or not; and an instance whose only peer is killed becomes alone without failing a request.
import pg from 'pg';
import t, { type Test } from 'tap';
import { PRESENCE_LOCK } from '../../src/store/postgres/schema.js';
import { start, type Started } from '../cli-process.js';
import { query, startPostgres } from '../pg/server.js';
import { until } from '../until.js';

const server = await startPostgres(t);
const APP = 'presence';
const H = { 'x-service-application': APP };
const LEAD = { firstname: 'Bea', lastname: 'Other', email: 'bea@example.com', musement_newsletter: 'NO', allow_profiling: 'NO', thirdparty_newsletter: 'NO', events_related_newsletter: 'NO' };

// Report off: its save, a second after a request, is a background write of the same application, which
// on waking reads it (or fails, fenced, and drops it from the cache) before the request would: not
// what these cases are about.
async function instance(t: Test, url: string): Promise<Started> {
  const s = await start(['--db', url, '--report', 'off']);
  t.teardown(() => {
    s.child.kill('SIGCONT');
    s.child.kill('SIGKILL');
  });
  return s;
}

async function call(s: Started, method: string, path: string, body?: unknown): Promise<{ status: number; body: { uuid?: string; customer?: { firstname?: string } } }> {
  const res = await fetch(`${s.url}${path}`, body === undefined ? { method, headers: H } : { method, headers: { ...H, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

/** A new cart through s: its uuid, or a failure naming the status. */
async function cart(s: Started): Promise<string> {
  const r = await call(s, 'POST', '/carts');
  if (r.status !== 200 || !r.body.uuid) throw new Error(`POST /carts answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body.uuid;
}

/**
 * A new cart through s, which may have been taken off the registry: its writes answer 503 (fenced)
 * until its next heartbeat registers it again, then 200.
 */
async function cartOnceRegistered(t: Test, s: Started): Promise<string> {
  const statuses: number[] = [];
  const written = await until('a write through it to be acknowledged', async () => {
    const r = await call(s, 'POST', '/carts');
    statuses.push(r.status);
    return r.status === 200 ? r.body.uuid : undefined;
  }, { ms: 15_000, every: 50 });
  t.same(statuses.filter((x) => x !== 200 && x !== 503), [], `503 (fenced) until its heartbeat registers it again, then 200: ${statuses.join(' ')}`);
  return written;
}

/** The rows of the registry: each instance's id, and whether its last grant of time alone still holds. */
async function registry(url: string): Promise<Array<{ id: string; alone: boolean }>> {
  return (await query(url, 'select id, coalesce(alone_until > now(), false) as alone from mock_instances order by id')).rows;
}

/** The only instance on the database, once it has found itself alone: its id. */
const aloneId = (url: string) => until('the instance to be alone', async () => {
  const rows = await registry(url);
  return rows.length === 1 && rows[0]!.alone ? rows[0]!.id : undefined;
}, { ms: 30_000 });

/**
 * Wakes a stopped instance while a transaction of the test holds the registry's lock, so that its
 * first heartbeat (overdue on waking: it would find the instance gone, or not alone, and end its time
 * alone) has no answer before `fn` is done: what `fn` sees rests on the instance's own clock alone.
 */
async function wakeWithHeartbeatHeld<T>(t: Test, url: string, s: Started, fn: () => Promise<T>): Promise<T> {
  const held = new pg.Client({ connectionString: url });
  await held.connect();
  t.teardown(() => held.end().catch(() => undefined));
  await held.query(`BEGIN; select pg_advisory_xact_lock(${PRESENCE_LOCK}, 0)`);
  s.child.kill('SIGCONT');
  try {
    return await fn();
  } finally {
    await held.query('COMMIT');
  }
}

/** Every cart acknowledged is there through each instance; `mine` carries the customer b set. */
async function allThere(t: Test, instances: Started[], acked: string[], mine: string) {
  for (const s of instances) {
    const statuses = await Promise.all(acked.map(async (uuid) => (await call(s, 'GET', `/carts/${uuid}`)).status));
    t.same(statuses, acked.map(() => 200), `each of the ${acked.length} acknowledged carts is read through ${s.url}`);
    t.equal((await call(s, 'GET', `/carts/${mine}`)).body.customer?.firstname, 'Bea', 'with the customer b wrote');
  }
}

t.test('an instance frozen while alone, past the expiry: on waking it reads first, and writes once registered again', async (t) => {
  const url = await server.createDatabase('frozen-past');
  const a = await instance(t, url);
  const idA = await aloneId(url);
  const mine = await cart(a);
  t.equal((await call(a, 'GET', `/carts/${mine}`)).status, 200, 'a reads its cart back, alone');

  a.child.kill('SIGSTOP');
  const b = await instance(t, url);
  t.equal((await call(b, 'PUT', `/carts/${mine}/customer`, LEAD)).status, 200, "b sets a customer on a's cart");
  const theirs = await cart(b);
  const acked = [mine, theirs];
  const frozen = Date.now();
  await until("b's heartbeat to take a off the registry", async () => !(await registry(url)).some((r) => r.id === idA), { ms: 30_000 });
  t.pass(`a taken off ${Date.now() - frozen} ms after b wrote`);

  const [seen, refused] = await wakeWithHeartbeatHeld(t, url, a, async () => [
    await Promise.all([call(a, 'GET', `/carts/${mine}`), call(a, 'GET', `/carts/${theirs}`)]),
    await call(a, 'POST', '/carts'),
  ] as const);
  t.same(seen.map((r) => r.status), [200, 200], 'a, awake before its first heartbeat, reads the cart b created');
  t.equal(seen[0].body.customer?.firstname, 'Bea', 'and the customer b set on its own cart');
  t.equal(refused.status, 503, 'a write through a before it registers again is refused');

  acked.push(await cartOnceRegistered(t, a), await cart(b), await cart(a));
  await allThere(t, [a, b], acked, mine);
});

t.test('an instance frozen while alone, for less than the expiry: on waking it reads what the other wrote meanwhile', async (t) => {
  const url = await server.createDatabase('frozen-short');
  const a = await instance(t, url);
  const idA = await aloneId(url);
  const mine = await cart(a);

  a.child.kill('SIGSTOP');
  const frozen = Date.now();
  const b = await instance(t, url);
  t.equal((await call(b, 'PUT', `/carts/${mine}/customer`, LEAD)).status, 200, "b sets a customer on a's cart");
  const theirs = await cart(b);
  // Under the expiry as a rule (b starts in a second or two); on a machine slow enough that b's
  // heartbeat took a off meanwhile, the case is the one above, and what follows holds the same.
  t.comment(`a frozen ${Date.now() - frozen} ms, ${(await registry(url)).some((r) => r.id === idA) ? 'still' : 'no longer'} registered`);
  const seen = await wakeWithHeartbeatHeld(t, url, a, () => Promise.all([call(a, 'GET', `/carts/${mine}`), call(a, 'GET', `/carts/${theirs}`)]));
  t.same(seen.map((r) => r.status), [200, 200], 'a, awake before its first heartbeat, reads the cart b created');
  t.equal(seen[0].body.customer?.firstname, 'Bea', 'and the customer b set on its own cart');
  // Taken off meanwhile (a slow machine), a writes again once its heartbeat registers it again.
  await allThere(t, [a, b], [mine, theirs, await cartOnceRegistered(t, a), await cart(b)], mine);
});

t.test('kill -9 of the other instance: the one left becomes alone, and every request through it answers 200 meanwhile', async (t) => {
  const url = await server.createDatabase('killed');
  const a = await instance(t, url);
  const idA = await aloneId(url);
  const b = await instance(t, url);
  await until('neither to be alone', async () => {
    const rows = await registry(url);
    return rows.length === 2 && rows.every((r) => !r.alone);
  }, { ms: 30_000 });
  const mine = await cart(a);
  t.equal((await call(b, 'PUT', `/carts/${mine}/customer`, LEAD)).status, 200, "b sets a customer on a's cart");

  b.child.kill('SIGKILL');
  await b.exited;
  const killed = Date.now();
  const acked = [mine];
  const failed: string[] = [];
  // A write, then a read, through a, over and over (bounded: 30 s): until the registry shows it alone, and five rounds more.
  let rounds = -1;
  let aloneAfter = Infinity;
  await until('a to be alone and write through five more rounds', async () => {
    const written = await call(a, 'POST', '/carts');
    if (written.status === 200 && written.body.uuid) acked.push(written.body.uuid);
    else failed.push(`POST ${written.status}`);
    const read = await call(a, 'GET', `/carts/${mine}`);
    if (read.status !== 200 || read.body.customer?.firstname !== 'Bea') failed.push(`GET ${read.status}`);
    if (rounds < 0) {
      const rows = await registry(url);
      if (rows.length === 1 && rows[0]!.id === idA && rows[0]!.alone) {
        aloneAfter = Date.now() - killed;
        rounds = 0;
      }
    } else rounds++;
    return rounds >= 5;
  }, { ms: 30_000, every: 20 });
  t.same(failed, [], `each of ${acked.length - 1} writes and as many reads through a answered 200`);
  t.ok(aloneAfter < 15_000, `a alone ${aloneAfter} ms after the kill (expiry 5 s)`);
  await allThere(t, [a], acked, mine);
});
