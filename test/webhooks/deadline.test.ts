import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { fixedClock } from '../../src/clock.js';
import { createStore } from '../../src/store/index.js';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.js';
import { WebhookSender } from '../../src/webhooks/sender.js';
import { snapshot, startReceiver, T0 } from './receiver.js';

/** The promise's value, or 'still running' after `ms`: a test fails instead of hanging. */
const within = <T>(p: Promise<T>, ms: number) => Promise.race([p, sleep(ms).then(() => 'still running' as const)]);

async function closedSoon(rx: { openConnections: () => number }): Promise<number> {
  for (let i = 0; i < 100 && rx.openConnections() > 0; i++) await sleep(10);
  return rx.openConnections();
}

t.test('an answer whose body trickles in fails at the deadline, and its connection is closed', async (t) => {
  const rx = await startReceiver(() => 'trickle');
  const sender = new WebhookSender({ deadlineMs: 1000 });
  t.teardown(async () => {
    await sender.close();
    await rx.close();
  });
  t.equal(new WebhookSender().deadlineMs, 10_000, '10 s by default');
  const r = await within(sender.send(rx.url, '{}', {}), 5000);
  if (r === 'still running') return t.fail('the attempt did not end at its deadline');
  t.same({ ...r, duration_ms: 0, headers: {} }, { error: 'timeout after 1000 ms (the deadline of an attempt): status 200 came, its body did not end', duration_ms: 0, delivered: false, headers: {} });
  t.ok(r.duration_ms >= 990 && r.duration_ms < 3000, `ended at the deadline (${r.duration_ms} ms)`);
  t.equal(await closedSoon(rx), 0, 'the connection is not kept');
});

t.test('no answer at all: the deadline ends the attempt before the per-phase timeout', async (t) => {
  const rx = await startReceiver(() => 'hang');
  const sender = new WebhookSender({ timeoutMs: 5000, deadlineMs: 200 });
  t.teardown(async () => {
    await sender.close();
    await rx.close();
  });
  const r = await within(sender.send(rx.url, '{}', {}), 3000);
  if (r === 'still running') return t.fail('the attempt did not end at its deadline');
  t.equal(r.error, 'timeout after 200 ms (the deadline of an attempt): no answer');
  const quick = await within(sender.send(rx.url, '{}', {}, 100), 3000);
  t.match(quick, { error: /^timeout after 100 ms/ }, 'a shorter deadline for one send');
});

t.test('an answer whose body stops for longer than the per-phase timeout fails, not delivered', async (t) => {
  const rx = await startReceiver(() => 'stall');
  const sender = new WebhookSender({ timeoutMs: 300, deadlineMs: 5000 });
  t.teardown(async () => {
    await sender.close();
    await rx.close();
  });
  const r = await within(sender.send(rx.url, '{}', {}), 4000);
  t.same(r === 'still running' ? r : { ...r, duration_ms: 0, headers: {} }, { error: 'timeout after 300 ms', duration_ms: 0, delivered: false, headers: {} });
  t.equal(await closedSoon(rx), 0, 'the connection is not kept');
});

t.test('a trickling receiver: the attempt fails at the deadline, is logged, and is retried on the schedule', async (t) => {
  const rx = await startReceiver((_r, i) => (i === 0 ? 'trickle' : 200));
  const clock = fixedClock(T0);
  const d = new WebhookDispatcher({ store: await createStore('memory'), clock, headerPrefix: 'X-Service-', flags: { url: rx.url, secret: null }, deadlineMs: 300, schedule: [1000] });
  d.start();
  t.teardown(async () => {
    await d.close();
    await rx.close();
  });
  const sent = await d.enqueue('acme', snapshot());
  if ((await within(d.idle(), 3000)) === 'still running') return t.fail('the attempt did not end at its deadline');
  const first = d.get(sent!.id)!;
  t.match(first, { state: 'pending', next_attempt_at: '2026-01-15T10:00:01.000Z', attempts: [{ at: T0, error: /^timeout after 300 ms \(the deadline of an attempt\)/ }] });
  t.equal(first.attempts[0]!.status_code, undefined, 'no status: the answer never ended');
  t.ok(first.attempts[0]!.duration_ms >= 290, `the deadline was waited for (${first.attempts[0]!.duration_ms} ms)`);
  clock.advance(1000);
  await within(d.idle(), 3000);
  t.match(d.get(sent!.id), { state: 'delivered', attempts: [{ error: /^timeout/ }, { status_code: 200 }] });
  t.equal(rx.received.length, 2);
});
