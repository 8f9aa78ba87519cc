import type { OrderItemStatus } from '../lifecycle/order-item-status.js';
import { addDuration, parseDuration } from '../time/duration.js';
import type { ChaosInput } from '../webhooks/chaos.js';
import { isStatusStep, type AttachRule, type Scenario } from './types.js';

/**
 * The scenario engine, PURE: no clock, no I/O, no timers. Whoever runs scenarios (the booking flow,
 * the control API) keeps a ScenarioRun, asks dueMoves(run, now) whenever time may have moved, applies
 * each action in order (status moves through assertMove, so a manual move in between stops the run
 * with a 409) and stores `applied = action.index + 1`.
 */
export interface ScenarioRun {
  scenario: Pick<Scenario, 'name' | 'from' | 'steps'>;
  application: string;
  order_item_uuid: string;
  /** Server-clock instant the run started (ISO 8601). */
  started_at: string;
  /** Steps already applied. */
  applied: number;
}

export type ScenarioAction =
  | { index: number; at: string; kind: 'status'; from: OrderItemStatus; to: OrderItemStatus }
  | { index: number; at: string; kind: 'receiver'; receiver: 'down' | 'up' }
  | { index: number; at: string; kind: 'chaos'; chaos: ChaosInput };

/** Every step with its instant: each `after` counts from the previous step. */
export function timeline(run: Pick<ScenarioRun, 'scenario' | 'started_at'>): readonly ScenarioAction[] {
  // Asked for on every due check and every webhook attempt of the run's item: remembered per run
  // object for as long as its steps and start stay the same.
  const hit = timelines.get(run);
  if (hit && hit.steps === run.scenario.steps && hit.started_at === run.started_at) return hit.actions;
  const actions = computeTimeline(run);
  timelines.set(run, { steps: run.scenario.steps, started_at: run.started_at, actions });
  return actions;
}

const timelines = new WeakMap<object, { steps: unknown; started_at: string; actions: readonly ScenarioAction[] }>();

function computeTimeline(run: Pick<ScenarioRun, 'scenario' | 'started_at'>): readonly ScenarioAction[] {
  let at = new Date(run.started_at);
  let status = run.scenario.from;
  return run.scenario.steps.map((step, index) => {
    at = addDuration(at, parseDuration(step.after));
    const when = at.toISOString();
    if ('chaos' in step) return { index, at: when, kind: 'chaos', chaos: step.chaos };
    if (!isStatusStep(step)) return { index, at: when, kind: 'receiver', receiver: step.receiver };
    const action: ScenarioAction = { index, at: when, kind: 'status', from: status, to: step.status };
    status = step.status;
    return action;
  });
}

/** The steps not yet applied whose time has come, in order. */
export function dueMoves(run: ScenarioRun, now: Date): ScenarioAction[] {
  const t = now.getTime();
  return timeline(run).filter((a) => a.index >= run.applied && Date.parse(a.at) <= t);
}

/** When the next unapplied step is due (to arm a timer), or null when the run is over. */
export function nextDueAt(run: ScenarioRun): string | null {
  return timeline(run).find((a) => a.index >= run.applied)?.at ?? null;
}

export function isFinished(run: ScenarioRun): boolean {
  return run.applied >= run.scenario.steps.length;
}

/** Whether the run's receiver steps have the receiver down at `now` (time decides, not `applied`). */
export function receiverDownAt(run: Pick<ScenarioRun, 'scenario' | 'started_at'>, now: Date): boolean {
  let down = false;
  for (const a of timeline(run)) {
    if (Date.parse(a.at) > now.getTime()) break;
    if (a.kind === 'receiver') down = a.receiver === 'down';
  }
  return down;
}

/** The chaos the run's last chaos step at or before `now` set, or null (none yet, or `chaos: {}`). */
export function chaosAt(run: Pick<ScenarioRun, 'scenario' | 'started_at'>, now: Date): ChaosInput | null {
  let chaos: ChaosInput | null = null;
  for (const a of timeline(run)) {
    if (Date.parse(a.at) > now.getTime()) break;
    if (a.kind === 'chaos') chaos = Object.keys(a.chaos).length ? a.chaos : null;
  }
  return chaos;
}

/** What an attach rule looks at on an order item. */
export interface AttachSubject {
  activity_uuid?: string | null;
  product_id?: string | number | null;
  lead_booker_email?: string | null;
}

/** Every field the rule gives must match (emails case-insensitively, product ids as strings). */
export function matchesAttach(rule: AttachRule, item: AttachSubject): boolean {
  if (rule.activity_uuid !== undefined && rule.activity_uuid.toLowerCase() !== item.activity_uuid?.toLowerCase()) return false;
  if (rule.product_id !== undefined && String(rule.product_id) !== String(item.product_id ?? '')) return false;
  if (rule.lead_booker_email !== undefined && rule.lead_booker_email.trim().toLowerCase() !== item.lead_booker_email?.trim().toLowerCase()) return false;
  return true;
}

/** The first scenario (by name) attached to an item for an event; null when none matches. */
export function attachedScenario(scenarios: Iterable<Scenario>, on: AttachRule['on'], item: AttachSubject): Scenario | null {
  const sorted = [...scenarios].filter((s) => s.attach?.on === on).sort((a, b) => a.name.localeCompare(b.name));
  return sorted.find((s) => matchesAttach(s.attach as AttachRule, item)) ?? null;
}
