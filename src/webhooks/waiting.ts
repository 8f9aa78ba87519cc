import type { ChaosConfig } from './chaos.js';
import { chainOf, compareDeliveries, type Delivery } from './delivery.js';

/** Why a pending delivery has not been delivered yet, in words a tester can act on. */
export interface DeliveryWait {
  /**
   * ordering: an earlier version of its order item goes first; retry: its next attempt is scheduled;
   * no_receiver: no webhook URL, so its attempts fail; receiver_down: a scenario step fails them;
   * chaos_delay: chaos holds the attempt under way; sending: the attempt is under way; due: it starts now.
   */
  reason: 'ordering' | 'retry' | 'no_receiver' | 'receiver_down' | 'chaos_delay' | 'sending' | 'due';
  message: string;
  /** Server-clock time of its next attempt, when one is scheduled and not under way. */
  next_attempt_at: string | null;
  /** ordering: the delivery that goes first. */
  after: string | null;
}

/** A delivery as the control API lists it: what is stored, and why it waits (null unless pending). */
export type DeliveryView = Delivery & { waiting: DeliveryWait | null };

export interface WaitContext {
  now: Date;
  /** The item's first pending delivery in sending order (itself when it is the head). */
  head: Delivery;
  inFlight: boolean;
  hasReceiver: boolean;
  /** The scenario gate's answer for the time of the next attempt. */
  blocked: string | null;
  chaos: ChaosConfig | null;
  /** Delays of the retry schedule: a round has one attempt more than it has delays. */
  delays: readonly number[];
}

/** Computed when asked (never stored): a reason only holds for the clock and configuration of that moment. */
export function waitingReason(d: Delivery, ctx: WaitContext, headWait?: DeliveryWait | null): DeliveryWait | null {
  if (d.state !== 'pending') return null;
  const wait = (reason: DeliveryWait['reason'], message: string, next: string | null = null, after: string | null = null): DeliveryWait => ({ reason, message, next_attempt_at: next, after });
  if (ctx.head.id !== d.id) {
    const first = `waiting for version ${ctx.head.order_item_version} of this order item to be delivered first (${ctx.head.id}`;
    return wait('ordering', headWait ? `${first}: ${headWait.message})` : `${first})`, null, ctx.head.id);
  }
  const [min, max] = ctx.chaos?.delay_ms ?? [0, 0];
  if (ctx.inFlight) return max > 0 ? wait('chaos_delay', `chaos delay: the attempt under way waits ${min}–${max} ms before it is sent`) : wait('sending', 'the attempt is under way');
  const inRound = d.attempts.length - d.round_start + 1;
  const of = `attempt ${inRound} of ${ctx.delays.length + 1}`;
  const due = d.next_attempt_at ?? ctx.now.toISOString();
  const when = Date.parse(due) > ctx.now.getTime() ? `at ${due}` : 'now';
  if (!ctx.hasReceiver) return wait('no_receiver', `receiver not configured (PUT /__admin/webhooks/config): ${of}, ${when}, fails without a request`, due);
  if (ctx.blocked) return wait('receiver_down', `${ctx.blocked}: ${of}, ${when}, fails without a request`, due);
  const failing = ctx.chaos && inRound <= ctx.chaos.fail_first ? ` (chaos: fail_first, it fails on purpose)` : '';
  if (when === 'now') return wait('due', `${of} starts now${failing}`, due);
  return wait('retry', `next attempt at ${due} (${of})${failing}`, due);
}

/** Deliveries with why each waits; an item's first pending delivery is its head, the others wait for it. */
export function withWaiting(list: Delivery[], context: (d: Delivery, head: Delivery) => WaitContext): DeliveryView[] {
  const itemKey = (d: Delivery) => `${d.application}\u0000${chainOf(d)}`;
  const heads = new Map<string, Delivery>();
  for (const d of list) {
    const head = heads.get(itemKey(d));
    if (d.state === 'pending' && (!head || compareDeliveries(d, head) < 0)) heads.set(itemKey(d), d);
  }
  const headWaits = new Map<string, DeliveryWait | null>();
  const wait = (d: Delivery, head: Delivery) => waitingReason(d, context(d, head), head.id === d.id ? null : headWaits.get(head.id));
  for (const head of heads.values()) headWaits.set(head.id, wait(head, head));
  return list.map((d) => ({ ...d, waiting: d.state === 'pending' ? wait(d, heads.get(itemKey(d)) ?? d) : null }));
}
