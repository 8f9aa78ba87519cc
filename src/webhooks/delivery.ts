import { createHash } from 'node:crypto';
import type { Store, Tenant } from '../store/index.js';
import { parseDuration, durationToMs } from '../time/duration.js';
import { buildPayload, type OrderItemSnapshot, type UpdateOrderItemPayload } from './payload.js';

export type DeliveryState = 'pending' | 'delivered' | 'failed';

/** What chaos did on purpose to an attempt (see chaos.ts). */
export type ChaosMark = 'duplicate' | 'reorder' | 'delay' | 'fail_first';

/** One POST to the receiver. `at` is server-clock time (the delivery log reads like the rest of the state). */
export interface DeliveryAttempt {
  at: string;
  status_code?: number;
  error?: string;
  duration_ms: number;
  /** Done on purpose (PUT /__admin/webhooks/chaos or a scenario step): duplicate, reorder, delay, fail_first. */
  chaos?: ChaosMark;
  /** The headers sent (signature headers included; Authorization masked); absent when no request was made. */
  headers?: Record<string, string>;
}

/** One "Update order item" webhook and everything done to deliver it; kept in tenant.deliveries. */
export interface Delivery {
  id: string;
  application: string;
  order_uuid: string;
  order_item_uuid: string;
  order_item_version: number;
  payload: UpdateOrderItemPayload;
  attempts: DeliveryAttempt[];
  state: DeliveryState;
  /** Server-clock time of the next attempt while pending; null once delivered or failed. */
  next_attempt_at: string | null;
  created_at: string;
  /** Per-application sequence: ties between equal versions go by it. */
  seq: number;
  /** Attempts before this index belong to earlier rounds: a redeliver restarts the retry schedule. */
  round_start: number;
  /** 'listener': relayed to the application's `mock-server listen` (listeners.ts); absent: its receiver. */
  target?: 'listener';
  /** The item's status before the move, when the webhook is a move's. */
  from_status?: string;
}

/** The real service's schedule is not published; this one is INTERFACE.md's default. */
export const DEFAULT_RETRY_SCHEDULE = ['PT10S', 'PT30S', 'PT2M', 'PT10M', 'PT1H'] as const;

/** Retry delays in ms from ISO 8601 durations (or ms already); a bad entry throws naming it. */
export function retryDelays(schedule: ReadonlyArray<string | number>): number[] {
  return schedule.map((s, i) => {
    const ms = typeof s === 'number' ? s : durationToMs(parseDuration(s));
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`retry schedule entry ${i} must be a duration >= 0, got ${String(s)}`);
    return ms;
  });
}

/**
 * Derived from what the delivery is about, never random: the same on every retry and after a
 * restart. The item uuid (itself unique per booking) keeps ids from repeating after a reset, which
 * restarts the sequence, or on another server: a receiver that deduplicates on the id would
 * otherwise drop a new event. Unique across applications too, since
 * /__admin/webhooks/deliveries/{id} names no application.
 */
export function deliveryId(application: string, seq: number, orderItemUuid: string, version: number): string {
  return `whd_${createHash('sha256').update(`${application}\n${seq}\n${orderItemUuid}\n${version}`).digest('hex').slice(0, 24)}`;
}

const COUNTER = 'webhookDeliveries';

/**
 * Writes a new pending delivery into a tenant. Synchronous, for use inside the store.update() that
 * applies the status move, so the move and its webhook are committed together.
 */
export function recordDelivery(tenant: Tenant, application: string, snapshot: OrderItemSnapshot, now: Date, target?: 'listener'): Delivery {
  const payload = buildPayload(snapshot);
  const seq = (tenant.counters[COUNTER] ?? 0) + 1;
  tenant.counters[COUNTER] = seq;
  const at = now.toISOString();
  const delivery: Delivery = {
    id: deliveryId(application, seq, snapshot.item.uuid, snapshot.item.version),
    application,
    order_uuid: snapshot.order.uuid,
    order_item_uuid: snapshot.item.uuid,
    order_item_version: snapshot.item.version,
    payload,
    attempts: [],
    state: 'pending',
    next_attempt_at: at,
    created_at: at,
    seq,
    round_start: 0,
    ...(target ? { target } : {}),
    ...(snapshot.item.from ? { from_status: snapshot.item.from } : {}),
  };
  tenant.deliveries[delivery.id] = delivery as unknown as Tenant['deliveries'][string];
  return delivery;
}

/** The delivery after one attempt: delivered on 200, else the next retry or failed after the last. */
export function afterAttempt(d: Delivery, attempt: DeliveryAttempt, delivered: boolean, delays: readonly number[]): Delivery {
  const attempts = [...d.attempts, attempt];
  if (delivered) return { ...d, attempts, state: 'delivered', next_attempt_at: null };
  const failedInRound = attempts.length - d.round_start;
  const delay = delays[failedInRound - 1];
  if (delay === undefined) return { ...d, attempts, state: 'failed', next_attempt_at: null };
  return { ...d, attempts, next_attempt_at: new Date(Date.parse(attempt.at) + delay).toISOString() };
}

/**
 * When a delivery is due, for a store shared by instances (its due row): pending ones at their next
 * attempt, one at a time per order item, in version order (compareDeliveries).
 */
export function deliveryDue(value: unknown): { at: number; chain: string; rank: bigint } | null {
  const d = value as Delivery;
  if (d.state !== 'pending') return null;
  return { at: Date.parse(d.next_attempt_at ?? '') || 0, chain: chainOf(d), rank: BigInt(d.order_item_version) * 1_000_000_000_000n + BigInt(d.seq) };
}

/** An item's deliveries go one at a time in version order, to each target apart: a listener away holds up no receiver. */
export function chainOf(d: Delivery): string {
  return d.target ? `${d.order_item_uuid}:${d.target}` : d.order_item_uuid;
}

/** Order of sending for one item: version, then creation. */
export function compareDeliveries(a: Delivery, b: Delivery): number {
  return a.order_item_version - b.order_item_version || a.seq - b.seq;
}

export interface DeliveryFilter {
  application?: string;
  order_item_uuid?: string;
}

/** Deliveries oldest first (then by application and sequence), optionally filtered. */
export function listDeliveries(store: Store, filter: DeliveryFilter = {}): Delivery[] {
  const apps = filter.application !== undefined ? [filter.application] : store.applications();
  const out: Delivery[] = [];
  for (const app of apps) {
    for (const raw of Object.values(store.tenant(app).deliveries)) {
      const d = raw as unknown as Delivery;
      if (filter.order_item_uuid === undefined || d.order_item_uuid === filter.order_item_uuid) out.push(d);
    }
  }
  return out.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.application.localeCompare(b.application) || a.seq - b.seq);
}
