import t from 'tap';
import { fixedClock } from '../../src/clock.js';
import { builtinScenariosDir } from '../../src/paths.js';
import { createStore } from '../../src/store/index.js';
import { loadScenarios, scenarioReceiverGate, type ScenarioRun } from '../../src/scenarios/index.js';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.js';
import { snapshot, startReceiver, T0 } from '../webhooks/receiver.js';

t.test('receiver-down: attempts fail while the run has the receiver down, then the retry gets through', async (t) => {
  const rx = await startReceiver();
  const clock = fixedClock(T0);
  const store = await createStore('memory');
  const d = new WebhookDispatcher({ store, clock, headerPrefix: 'X-Service-', flags: { url: rx.url, secret: null } });
  t.teardown(async () => {
    await d.close();
    await rx.close();
  });
  const scenario = loadScenarios(builtinScenariosDir, null).get('receiver-down')!;
  const item = snapshot().item.uuid;
  const runs: ScenarioRun[] = [{ scenario, application: 'acme', order_item_uuid: item, started_at: T0, applied: 3 }];
  d.setGate(scenarioReceiverGate((app, uuid) => runs.filter((r) => r.application === app && r.order_item_uuid === uuid)));
  d.start();

  const mine = (await d.enqueue('acme', snapshot()))!;
  const other = (await d.enqueue('acme', snapshot({ item: { uuid: 'another-item' } })))!;
  await d.idle();
  t.equal(d.get(other.id)!.state, 'delivered', 'other items are not affected');
  // Default schedule: 0 s, 10 s, 40 s and 2 min 40 s fail; the receiver is back at 3 min; 12 min 40 s gets through.
  for (const gap of [10_000, 30_000, 120_000, 600_000]) {
    clock.advance(gap);
    await d.idle();
  }
  const got = d.get(mine.id)!;
  t.same(
    got.attempts.map((a) => a.status_code ?? a.error),
    ['receiver down (scenario receiver-down)', 'receiver down (scenario receiver-down)', 'receiver down (scenario receiver-down)', 'receiver down (scenario receiver-down)', 200],
  );
  t.equal(got.attempts[4]!.at, '2026-01-15T10:12:40.000Z');
  t.equal(got.state, 'delivered');
  t.equal(rx.received.length, 2, 'failed attempts sent nothing');
});
