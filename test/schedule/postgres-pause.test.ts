// Real CLI processes on one PostgreSQL: an instance frozen (SIGSTOP, standing in for a long GC pause
// or a frozen VM) past its lease while its attempts are in flight. The other instance claims and
// sends them; when the first resumes, its late outcomes are discarded (the claim's fencing token no
// longer matches), so every delivery is recorded delivered once, with one attempt. The duplicate
// sends carry the same webhook-id, as at-least-once delivery promises.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { start, type Started } from '../cli-process.js';
import { bookOrder, overHttp } from '../book-order.js';
import { query, startPostgres } from '../pg/server.js';
import { T0 } from '../webhooks/receiver.js';

const server = await startPostgres(t);
const LEASE_MS = 1000;
const ITEMS = 10;

async function instance(t: Test, db: string, webhookUrl: string): Promise<Started> {
  const s = await start(['--db', db, '--webhook-url', webhookUrl, '--webhook-secret', 'whsec_pause'], { MOCK_SERVER_LEASE_MS: String(LEASE_MS) });
  t.teardown(() => {
    s.child.kill('SIGCONT');
    s.child.kill('SIGKILL');
  });
  return s;
}

/** A receiver on 127.0.0.1 that holds the answers to the first `hold` requests until release(), and answers the rest 200 at once. */
async function slowReceiver(t: Test, hold: number) {
  const received: Array<{ id: string; key: string }> = [];
  const held: http.ServerResponse[] = [];
  const srv = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      const p = JSON.parse(body);
      received.push({ id: String(req.headers['webhook-id']), key: `${p.order_item_uuid}@${p.order_item_version}` });
      if (received.length <= hold) held.push(res);
      else res.end('ok');
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    srv.closeAllConnections();
    srv.close();
  });
  return { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/hooks`, received, release: () => held.forEach((res) => res.end('ok')) };
}

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  for (const end = Date.now() + ms; !(await check()); await new Promise((r) => setTimeout(r, 50))) {
    if (Date.now() > end) throw new Error(`waited ${ms} ms for ${what}`);
  }
}

const post = (s: Started, path: string, body: unknown) => fetch(`${s.origin}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

type Logged = Array<{ id: string; state: string; attempts: unknown[] }>;

/**
 * The delivery log through s. An instance just woken may answer 503 (`try again`) for a moment, as
 * one did once in CI: a timer that ran out while it was frozen fires on waking before the answer
 * that came meanwhile is read (a connection's is asked again since, db.ts; a statement under way
 * for more than its 10 s is not). Then `undefined`, which the waits take as not yet; any other
 * failure fails the test, naming the answer.
 */
async function deliveries(s: Started): Promise<Logged | undefined> {
  const res = await fetch(`${s.origin}/__admin/webhooks/deliveries?application=paused`);
  const body = await res.json();
  if (res.status === 503) return undefined;
  if (res.status !== 200) throw new Error(`the delivery log through ${s.origin} answered ${res.status}: ${JSON.stringify(body)}`);
  return body.deliveries;
}
const delivered = (log: Logged | undefined) => (log ?? []).filter((d) => d.state === 'delivered').length;

/**
 * a frozen past its lease with its attempts in flight; `pastExpiry`: past the registry's expiry too
 * (5 s), taken off it by b's heartbeat before it wakes, so that its writes are refused by the fence
 * on its own row before any claim's token is looked at (a slow machine does the same when b's start
 * takes that long).
 */
async function frozenPastLease(t: Test, name: string, pastExpiry: boolean) {
  const rx = await slowReceiver(t, ITEMS);
  const db = await server.createDatabase(name);
  const a = await instance(t, db, rx.url);
  t.equal((await post(a, '/__admin/clock', { set: T0 })).status, 200);
  const items: string[] = [];
  for (let i = 0; i < ITEMS; i++) items.push((await bookOrder(overHttp(a.url, 'paused'))).items[0]!.uuid);
  const moved = await Promise.all(items.map((item) => post(a, `/__admin/order-items/${item}/status`, { status: 'OK' })));
  t.same(new Set(moved.map((r) => r.status)), new Set([200]));
  await until('a to send every webhook', () => rx.received.length === ITEMS);

  a.child.kill('SIGSTOP');
  const frozen = Date.now();
  // The answers reach a's sockets while it is frozen: it reads them when it resumes.
  rx.release();
  const b = await instance(t, db, rx.url);
  await until('b to claim and send them once the lease ran out', () => rx.received.length === 2 * ITEMS);
  t.pass(`b sent the ${ITEMS} again ${Date.now() - frozen} ms after a froze (its start included)`);
  await until('b to record them delivered', async () => delivered(await deliveries(b)) === ITEMS);
  if (pastExpiry) await until("b's heartbeat to take a off the registry", async () => (await query(db, 'select count(*)::int as n from mock_instances')).rows[0].n === 1);

  a.child.kill('SIGCONT');
  // a's late outcomes: discarded and logged when fenced, by their claims' tokens or (past the expiry)
  // by the fence on a's writes, logged as not saved; recorded as second attempts when not.
  const discarded = () =>
    a.stdout().split('\n').reduce((n, l) => {
      if (l.includes('outcome discarded')) return n + 1;
      if (l.includes('webhook delivery state not saved') && l.includes('away past its registration')) return n + (JSON.parse(l) as { deliveries: string[] }).deliveries.length;
      return n;
    }, 0);
  await until('a to discard its late outcomes', async () => discarded() === ITEMS || ((await deliveries(b)) ?? []).some((d) => d.attempts.length > 1));
  await until('a to read the same log', async () => delivered(await deliveries(a)) === ITEMS);

  for (const s of [a, b]) {
    let log: Logged | undefined;
    await until(`the log through ${s.origin}`, async () => (log = await deliveries(s)) !== undefined);
    log ??= [];
    t.equal(log.length, ITEMS);
    t.same(log.filter((d) => d.state !== 'delivered' || d.attempts.length !== 1).map((d) => [d.id, d.state, d.attempts.length]), [], 'every delivery delivered, with one attempt recorded');
  }
  t.equal(discarded(), ITEMS, 'each late outcome of a was discarded and logged');
  t.equal(a.child.exitCode, null, 'a is still running');
  const ids = new Map<string, Set<string>>();
  for (const r of rx.received) ids.set(r.key, (ids.get(r.key) ?? new Set()).add(r.id));
  t.equal(ids.size, ITEMS, 'every move sent');
  t.same([...ids.values()].filter((s) => s.size !== 1).length, 0, 'each duplicate send carries the webhook-id of the first');
}

t.test(`an instance frozen past its lease with ${ITEMS} attempts in flight: each delivery is recorded once`, (t) => frozenPastLease(t, 'paused', false));

t.test('the same, frozen past the registry\'s expiry too: its writes are fenced first, and each delivery is still recorded once', (t) => frozenPastLease(t, 'paused_long', true));
