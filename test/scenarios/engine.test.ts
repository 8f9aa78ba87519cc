import t from 'tap';
import { builtinScenariosDir } from '../../src/paths.js';
import {
  attachedScenario,
  dueMoves,
  isFinished,
  loadScenarios,
  matchesAttach,
  nextDueAt,
  receiverDownAt,
  type ScenarioRun,
} from '../../src/scenarios/index.js';

const builtins = loadScenarios(builtinScenariosDir, null);
const T0 = '2026-01-15T10:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(T0) + ms);
const run = (name: string, applied = 0): ScenarioRun => ({
  scenario: builtins.get(name)!,
  application: 'acme',
  order_item_uuid: 'item-1',
  started_at: T0,
  applied,
});
/** Compact view of what is due: "FROM>TO@offset" or "receiver down@offset". */
const due = (r: ScenarioRun, ms: number) =>
  dueMoves(r, at(ms)).map((a) => `${a.kind === 'status' ? `${a.from}>${a.to}` : a.kind === 'receiver' ? `receiver ${a.receiver}` : `chaos ${JSON.stringify(a.chaos)}`}@${(Date.parse(a.at) - Date.parse(T0)) / 1000}s#${a.index}`);

t.test('instant confirmation: PENDING>OK at once', async (t) => {
  t.same(due(run('instant-confirmation'), 0), ['PENDING>OK@0s#0']);
  t.same(due(run('instant-confirmation', 1), 0), [], 'nothing after it was applied');
  t.ok(isFinished(run('instant-confirmation', 1)));
  t.equal(nextDueAt(run('instant-confirmation', 1)), null);
});

t.test('delayed confirmation: PENDING>OK after 2 minutes', async (t) => {
  const r = run('delayed-confirmation');
  t.same(due(r, 0), []);
  t.same(due(r, 119_999), []);
  t.same(due(r, 120_000), ['PENDING>OK@120s#0']);
  t.equal(nextDueAt(r), '2026-01-15T10:02:00.000Z');
  t.notOk(isFinished(r));
});

t.test('refusal: PENDING>KO at once', async (t) => {
  t.same(due(run('refusal'), 5), ['PENDING>KO@0s#0']);
});

t.test('cancellation: OK>REFUND_STARTED, then REFUNDED a minute later', async (t) => {
  t.same(due(run('cancellation'), 0), ['OK>REFUND_STARTED@0s#0']);
  t.same(due(run('cancellation', 1), 59_000), []);
  t.same(due(run('cancellation', 1), 60_000), ['REFUND_STARTED>REFUNDED@60s#1']);
  t.same(due(run('cancellation'), 3_600_000), ['OK>REFUND_STARTED@0s#0', 'REFUND_STARTED>REFUNDED@60s#1'], 'a big clock jump: all due, in order');
});

t.test('cancellation error, refunded after all, or kept', async (t) => {
  const e = run('cancellation-error');
  t.same(due(e, 60_000), ['OK>REFUND_STARTED@0s#0', 'REFUND_STARTED>CANCELLATION_ERROR@60s#1']);
  t.same(due({ ...e, applied: 2 }, 659_999), []);
  t.same(due({ ...e, applied: 2 }, 660_000), ['CANCELLATION_ERROR>REFUNDED@660s#2'], 'each after counts from the previous step');
  const k = run('cancellation-error-kept', 2);
  t.same(due(k, 360_000), ['CANCELLATION_ERROR>OK@360s#2']);
  t.equal(nextDueAt(k), '2026-01-15T10:06:00.000Z');
});

t.test('receiver down for three minutes around the confirmation', async (t) => {
  const r = run('receiver-down');
  t.same(due(r, 0), ['receiver down@0s#0', 'PENDING>OK@0s#1']);
  t.same(due(run('receiver-down', 2), 180_000), ['receiver up@180s#2']);
  t.equal(receiverDownAt(r, at(0)), true);
  t.equal(receiverDownAt(r, at(179_999)), true);
  t.equal(receiverDownAt(r, at(180_000)), false);
  t.equal(receiverDownAt(r, at(-1)), false, 'not before the run starts');
});

t.test('attach rules', async (t) => {
  const rule = { lead_booker_email: 'ko@example.com', on: 'payment' as const };
  t.ok(matchesAttach(rule, { lead_booker_email: ' KO@Example.com ' }));
  t.notOk(matchesAttach(rule, { lead_booker_email: 'ok@example.com' }));
  t.notOk(matchesAttach(rule, {}));
  const both = { activity_uuid: 'A-1', product_id: 42, on: 'payment' as const };
  t.ok(matchesAttach(both, { activity_uuid: 'a-1', product_id: '42' }));
  t.notOk(matchesAttach(both, { activity_uuid: 'a-1', product_id: 43 }), 'every field given must match');
  t.equal(attachedScenario(builtins.values(), 'payment', { lead_booker_email: 'ko@example.com' })?.name, 'refusal');
  t.equal(attachedScenario(builtins.values(), 'payment', { lead_booker_email: 'webhook-down@example.com' })?.name, 'receiver-down');
  t.equal(attachedScenario(builtins.values(), 'cancellation', { lead_booker_email: 'cancel-error@example.com' })?.name, 'cancellation-error');
  t.equal(attachedScenario(builtins.values(), 'payment', { lead_booker_email: 'cancel-error@example.com' }), null, 'attached on cancellation only');
  t.equal(attachedScenario(builtins.values(), 'payment', { lead_booker_email: 'someone@example.com' }), null);
});

t.test('the engine is pure: same input, same output, input untouched', async (t) => {
  const r = run('cancellation-error');
  const before = JSON.stringify(r);
  t.same(dueMoves(r, at(700_000)), dueMoves(r, at(700_000)));
  t.equal(JSON.stringify(r), before);
});

t.test('chaos steps: the last one at or before now applies; an empty one ends it', async (t) => {
  const { chaosAt } = await import('../../src/scenarios/index.js');
  const steps = [
    { after: 'PT0S', chaos: { duplicate: 1 } },
    { after: 'PT0S', status: 'OK' as const },
    { after: 'PT1M', chaos: {} },
  ];
  const r = { scenario: { name: 'c', from: 'PENDING' as const, steps }, started_at: T0 };
  t.same(chaosAt(r, at(0)), { duplicate: 1 });
  t.same(chaosAt(r, at(59_999)), { duplicate: 1 });
  t.equal(chaosAt(r, at(60_000)), null);
  t.equal(chaosAt(r, at(-1)), null, 'not before the run starts');
  t.same(due({ ...r, application: 'a', order_item_uuid: 'i', applied: 0 }, 0), ['chaos {"duplicate":1}@0s#0', 'PENDING>OK@0s#1']);
});
