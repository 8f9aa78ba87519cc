import { setTimeout as sleep } from 'node:timers/promises';
import type { AdminOrderItem, ScenarioInfo, WebhookDelivery } from '../control-client.js';
import { PartnerApiError, SessionError, type SandboxSession } from '../sandbox-session.js';
import { book } from './book.js';
import { ACTIVITY_FOR, EVENTS, LEAD_BOOKER, type Override } from './events.js';

export interface TriggerOptions {
  event: string;
  /** An existing order item to act on; null: book one first. */
  item: string | null;
  overrides: Partial<Record<Override, string>>;
  /** How long to wait for the event to play out, real time. */
  timeoutMs?: number;
}

/** `mock-server trigger --list`: the events, their scenario's moves and what they say. */
export function listEvents(scenarios: Array<Pick<ScenarioInfo, 'name' | 'from' | 'steps'>>): string[] {
  const width = Math.max(...EVENTS.map((e) => e.name.length)) + 2;
  return EVENTS.map((e) => {
    const s = scenarios.find((x) => x.name === e.scenario);
    return `${e.name.padEnd(width)}${s ? moves(s) : `(scenario ${e.scenario} is not loaded)`}: ${e.says}`;
  });
}

/** A scenario's moves in one line: `OK → REFUND_STARTED → CANCELLATION_ERROR (PT1M) → REFUNDED (PT10M)`. */
function moves(s: Pick<ScenarioInfo, 'from' | 'steps'>): string {
  const parts: string[] = [s.from];
  for (const step of s.steps) if ('status' in step) parts.push(step.after === 'PT0S' ? step.status : `${step.status} (${step.after})`);
  return parts.join(' → ');
}

const label = (name: string) => name.padEnd(13);
/** Whole seconds, rounded up: the step or retry is then due, not a millisecond short. */
const durationOf = (ms: number) => `PT${Math.ceil(ms / 1000)}S`;

function attemptText(a: WebhookDelivery['attempts'][number]): string {
  const what = a.status_code !== undefined ? `${a.status_code} in ${a.duration_ms} ms` : (a.error ?? 'error');
  return a.chaos ? `${what} (chaos ${a.chaos})` : what;
}

/** Its last attempt failed on purpose, without a request: a scenario's receiver down, chaos fail_first. */
const failedOnPurpose = (d: WebhookDelivery) => {
  const last = d.attempts.at(-1);
  return last !== undefined && last.status_code === undefined && (last.chaos === 'fail_first' || /^receiver down/.test(last.error ?? ''));
};

/**
 * Makes one named event happen on an order item (booked first unless `item` is given) and plays it
 * to its end: the event's scenario is run on the item, the application's clock is moved to each of
 * its later steps and to the retries it made fail on purpose, and every delivery is waited for
 * until it is delivered, failed, or waits for a retry after the receiver's own failure. Prints
 * what it did as it goes; false when the scenario stopped early or did not end in time.
 */
export async function trigger(session: SandboxSession, opts: TriggerOptions, print: (line: string) => void): Promise<boolean> {
  const event = EVENTS.find((e) => e.name === opts.event);
  if (!event) throw new SessionError(`unknown event "${opts.event.slice(0, 64)}": mock-server trigger --list names them (${EVENTS.map((e) => e.name).join(', ')})`);
  const control = () => session.control;
  // An item is looked for in every application the caller may see, unless one was named.
  await session.open(opts.item === null, opts.item === null ? undefined : null);
  const { scenarios } = await session.ask(() => control().scenarios());
  const scenario = scenarios.find((s) => s.name === event.scenario);
  if (!scenario) throw new SessionError(`event ${event.name} plays the scenario ${event.scenario}, which this sandbox has not loaded`);
  print(`${label('event')}${event.name}: ${event.says} (scenario ${scenario.name}: ${moves(scenario)})`);

  let item: AdminOrderItem;
  let application: string;
  const known = new Set<string>();
  if (opts.item !== null) {
    const found = (await session.ask(() => control().orders(session.application ?? undefined))).orders.flatMap((o) => o.items.map((x) => ({ o, x }))).find(({ x }) => x.uuid === opts.item);
    if (!found) throw new SessionError(`no order item ${opts.item.slice(0, 64)}${session.application ? ` in application ${session.application}` : ''}`);
    ({ x: item } = found);
    application = found.o.application;
    if (item.status !== scenario.from) {
      const fitting = EVENTS.filter((e) => scenarios.find((s) => s.name === e.scenario)?.from === item.status).map((e) => e.name);
      throw new SessionError(`order item ${item.uuid} is ${item.status}: event ${event.name} starts from ${scenario.from}${fitting.length ? `; from ${item.status}: ${fitting.join(', ')}` : '; no event starts from there'}`);
    }
    for (const d of (await session.ask(() => control().deliveries({ order_item_uuid: item.uuid, application }))).deliveries) known.add(d.id);
    print(`${label('application')}${application} at ${session.origin}`);
    print(`${label('item')}${item.uuid} (${item.code}), ${item.status}`);
  } else {
    application = session.application as string;
    print(`${label('application')}${application} at ${session.origin}`);
    const start = scenario.from === 'OK' ? 'OK' : 'PENDING';
    const activity = opts.overrides.activity ?? ACTIVITY_FOR[start];
    const quantity = Number(opts.overrides.quantity ?? 1);
    let booked;
    try {
      booked = await book(session, activity, quantity, opts.overrides.email ?? LEAD_BOOKER);
    } catch (e) {
      if (e instanceof PartnerApiError) throw new SessionError(`booking through the partner API failed: ${e.message}`);
      throw e;
    }
    print(`${label('booked')}order ${booked.order.identifier} (${booked.order.uuid}): ${booked.quantity} × "${booked.activity.title}" on ${booked.day}, lead booker ${booked.email}`);
    print(`${label('item')}${booked.item.uuid} (${booked.item.code}), ${booked.item.status} after payment`);
    if (booked.item.status === 'PENDING' && scenario.from === 'OK') {
      await session.ask(() => control().moveItem(booked.item.uuid, 'OK', application));
      print(`${label('move')}PENDING → OK (confirmed by hand: the event starts from OK)`);
    } else if (booked.item.status !== scenario.from) {
      throw new SessionError(`the booked item is ${booked.item.status} after payment, and event ${event.name} starts from ${scenario.from}${opts.overrides.activity ? ': choose an activity that needs confirmation' : ''}${opts.overrides.email ? ` (does a scenario attach to ${opts.overrides.email}?)` : ''}`);
    }
    item = await findItem(session, application, booked.item.uuid);
  }

  await session.ask(() => control().runScenario(scenario.name, { order_item_uuid: item.uuid }));
  const ok = await playOut(session, application, item.uuid, scenario, opts.timeoutMs ?? 60_000, print);
  const deliveries = (await session.ask(() => control().deliveries({ order_item_uuid: item.uuid, application }))).deliveries.filter((d) => !known.has(d.id));
  if (deliveries.length === 0) print(`${label('deliveries')}none: application ${application} has no receiver (PUT /__admin/webhooks/config, or mock-server listen)`);
  for (const d of deliveries) {
    const state = d.state === 'pending' ? `pending: ${d.waiting?.message ?? ''}` : d.state;
    print(`${label('delivery')}${d.id} ${d.payload.order_item_status} (version ${d.order_item_version}): ${d.attempts.map(attemptText).join('; ') || 'no attempt yet'}; ${state}`);
  }
  return ok;
}

async function findItem(session: SandboxSession, application: string, uuid: string): Promise<AdminOrderItem> {
  const orders = await session.ask(() => session.control.orders(application));
  const item = orders.orders.flatMap((o) => o.items).find((x) => x.uuid === uuid);
  if (!item) throw new SessionError(`order item ${uuid} is not in application ${application}`);
  return item;
}

/**
 * Waits for the run's steps and the item's deliveries, moving the application's clock (never the
 * server's) to each later step and to each retry that failed on purpose, so that the event plays
 * out in seconds. A retry after the receiver's own failure is not hurried: that is the receiver's.
 */
async function playOut(session: SandboxSession, application: string, uuid: string, scenario: ScenarioInfo, timeoutMs: number, print: (line: string) => void): Promise<boolean> {
  const control = session.control;
  const deadline = Date.now() + timeoutMs;
  const statusSteps = scenario.steps.flatMap((s, i) => ('status' in s ? [{ i, to: s.status }] : []));
  let shown = 0;
  let status: string = scenario.from;
  for (;;) {
    const [item, { deliveries }, clock] = await session.ask(() => Promise.all([findItem(session, application, uuid), control.deliveries({ order_item_uuid: uuid, application }), control.clock.now(application)]));
    const run = item.scenario;
    const done = run !== null && run.name === scenario.name ? run.steps_done : 0;
    for (; shown < statusSteps.length && statusSteps[shown]!.i < done; shown++) {
      print(`${label('move')}${status} → ${statusSteps[shown]!.to}`);
      status = statusSteps[shown]!.to;
    }
    if (run?.stopped) {
      print(`${label('stopped')}the scenario stopped: ${run.stopped}`);
      return false;
    }
    const pending = deliveries.filter((d) => d.state === 'pending');
    const moving = pending.some((d) => d.waiting && ['due', 'sending', 'chaos_delay'].includes(d.waiting.reason));
    const finished = run !== null && run.steps_done === run.steps;
    const now = Date.parse(clock.now);
    const due = [
      ...(!finished && run?.next_step_at ? [{ at: Date.parse(run.next_step_at), why: 'the next step is due' }] : []),
      ...pending.filter((d) => d.next_attempt_at && (d.waiting?.reason === 'receiver_down' || failedOnPurpose(d))).map((d) => ({ at: Date.parse(d.next_attempt_at as string), why: 'a retry is due' })),
    ].sort((a, b) => a.at - b.at)[0];
    if (finished && !moving && !due) return true;
    if (Date.now() > deadline) {
      print(`${label('gave up')}after ${timeoutMs / 1000} s the event had not played out (${pending.length} deliveries pending)`);
      return false;
    }
    if (!moving && due && due.at > now) {
      await session.ask(() => control.clock.advance(durationOf(due.at - now), application));
      print(`${label('clock')}moved ${application}'s clock by ${durationOf(due.at - now)}: ${due.why}`);
    }
    await sleep(50);
  }
}
