import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { fixedClock } from '../../src/clock.js';
import { createStore } from '../../src/store/index.js';
import { buildWebhookApp, deadPort, snapshot, startReceiver, T0 } from './receiver.js';

t.test('pending deliveries survive a restart on the same state file and resume on the server clock', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mock-webhooks-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const db = join(dir, 'state.json');
  const down = `http://127.0.0.1:${await deadPort()}/hooks`;

  // First run: the receiver is down, the first attempt is refused and a retry is scheduled.
  const clock1 = fixedClock(T0);
  const app1 = await buildWebhookApp({ clock: clock1, store: await createStore(db), config: { webhookUrl: down, db } });
  const first = (await app1.webhooks.enqueue('acme', snapshot({ item: { version: 1 } })))!;
  const second = (await app1.webhooks.enqueue('acme', snapshot({ item: { version: 2, status: 'REFUND_STARTED' } })))!;
  await app1.webhooks.idle();
  t.match(app1.webhooks.get(first.id), { state: 'pending', attempts: [{ error: /^ECONNREFUSED/ }], next_attempt_at: '2026-01-15T10:00:10.000Z' });
  await app1.close();

  // Second run: same file, the receiver is back (another URL from the flags, as after a redeploy).
  const rx = await startReceiver();
  t.teardown(() => rx.close());
  const clock2 = fixedClock(T0);
  const app2 = await buildWebhookApp({ clock: clock2, store: await createStore(db), config: { webhookUrl: rx.url, db } });
  t.teardown(() => app2.close());
  await app2.webhooks.idle();
  t.equal(rx.received.length, 0, 'the retry is not due yet');
  t.match(app2.webhooks.get(first.id), { state: 'pending', attempts: [{ error: /^ECONNREFUSED/ }] });
  clock2.advance(10_000);
  await app2.webhooks.idle();
  t.equal(app2.webhooks.get(first.id)!.state, 'delivered');
  t.equal(app2.webhooks.get(second.id)!.state, 'delivered');
  t.same(rx.received.map((r) => (JSON.parse(r.body) as { order_item_version: string }).order_item_version), ['1', '2'], 'still in version order');
  t.same(app2.webhooks.get(first.id)!.attempts.map((a) => a.status_code ?? 'error'), ['error', 200]);

  // The new delivery ids continue the sequence: nothing is overwritten.
  const third = (await app2.webhooks.enqueue('acme', snapshot({ item: { version: 3, status: 'REFUNDED' } })))!;
  t.not(third.id, first.id);
  t.not(third.id, second.id);
  await app2.webhooks.idle();
  t.equal(app2.webhooks.list({ application: 'acme' }).length, 3);
});
