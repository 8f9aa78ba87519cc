// Real CLI processes on one PostgreSQL: a delivery whose instance was killed (kill -9) is sent by
// the other, once the dead instance's lease has run out (shortened to 1 s here), or when its retry
// comes due. Nothing is lost; the only duplicate is the attempt that was in flight when it died.
import t, { type Test } from 'tap';
import { start, type Started } from '../cli-process.js';
import { bookOrder, overHttp } from '../book-order.js';
import { startPostgres } from '../pg/server.js';
import { startReceiver, T0, type Answer, type Received } from '../webhooks/receiver.js';

const server = await startPostgres(t);
const LEASE_MS = 1000;

async function instance(t: Test, db: string, webhookUrl: string): Promise<Started> {
  const s = await start(['--db', db, '--webhook-url', webhookUrl, '--lease-ms', String(LEASE_MS)]);
  t.teardown(() => void s.child.kill('SIGKILL'));
  return s;
}

async function receiver(t: Test, answer: (r: Received, i: number) => Answer) {
  const rx = await startReceiver(answer);
  t.teardown(rx.close);
  return rx;
}

async function until(check: () => boolean | Promise<boolean>, ms = 15_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) if (await check()) return true;
  return check();
}

const post = (s: Started, path: string, body: unknown) => fetch(`${s.origin}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function deliveries(s: Started, application: string): Promise<Array<{ state: string; attempts: Array<{ status_code?: number }> }>> {
  return (await (await fetch(`${s.origin}/__admin/webhooks/deliveries?application=${application}`)).json()).deliveries;
}

/** Books one item on `s` (its clock set to the test day first) and moves it to OK there. */
async function bookAndMove(t: Test, s: Started, application: string): Promise<string> {
  t.equal((await post(s, '/__admin/clock', { set: T0 })).status, 200);
  const item = (await bookOrder(overHttp(s.url, application))).items[0]!.uuid;
  t.equal((await post(s, `/__admin/order-items/${item}/status`, { status: 'OK' })).status, 200);
  return item;
}

t.test('kill -9 of the instance whose receiver holds the attempt: the other sends it once the lease runs out', async (t) => {
  const rx = await receiver(t, (_r, i) => (i === 0 ? 'hang' : 200));
  const db = await server.createDatabase('killed_mid_attempt');
  // Both run before the move: a's attempt times out after 5 s, so the kill must come sooner than
  // that after it went out (a start of b in between took longer than that on a loaded machine).
  const [a, b] = [await instance(t, db, rx.url), await instance(t, db, rx.url)];
  const item = await bookAndMove(t, a, 'crash');
  t.ok(await until(() => rx.received.length === 1), 'a sent the webhook; the receiver holds the attempt');
  await new Promise((r) => setTimeout(r, 2 * LEASE_MS));
  t.equal(rx.received.length, 1, 'b leaves it alone while a lives and renews its lease');
  a.child.kill('SIGKILL');
  await a.exited;
  const killed = Date.now();
  t.ok(await until(() => rx.received.length === 2), 'b sends it');
  t.ok(Date.now() - killed < LEASE_MS + 3000, `within the lease and a poll (${Date.now() - killed} ms)`);
  t.ok(await until(async () => (await deliveries(b, 'crash'))[0]?.state === 'delivered'), 'recorded delivered');
  const [d] = await deliveries(b, 'crash');
  t.same(d?.attempts.map((x) => x.status_code), [200], 'one attempt recorded: the one cut off by the kill never was');
  await new Promise((r) => setTimeout(r, 2 * LEASE_MS));
  t.same(rx.received.map((r) => JSON.parse(r.body).order_item_uuid), [item, item], 'the in-flight attempt and its replacement, nothing more');
});

t.test('kill -9 while a retry is scheduled: the other instance sends the retry when it comes due', async (t) => {
  const rx = await receiver(t, (_r, i) => (i === 0 ? 500 : 200));
  const db = await server.createDatabase('killed_with_retry');
  const [a, b] = await Promise.all([instance(t, db, rx.url), instance(t, db, rx.url)]);
  await bookAndMove(t, a, 'later');
  t.ok(await until(async () => (await deliveries(b, 'later'))[0]?.attempts.length === 1), 'the first attempt failed and is recorded');
  a.child.kill('SIGKILL');
  await a.exited;
  // The retry is 10 s away on the default schedule.
  t.equal((await post(b, '/__admin/clock', { advance: 'PT11S' })).status, 200);
  t.ok(await until(async () => (await deliveries(b, 'later'))[0]?.state === 'delivered'), 'the retry is delivered');
  const [d] = await deliveries(b, 'later');
  t.same(d?.attempts.map((x) => x.status_code), [500, 200]);
  await new Promise((r) => setTimeout(r, 2 * LEASE_MS));
  t.equal(rx.received.length, 2, 'each attempt sent once');
});
