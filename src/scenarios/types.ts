import type { OrderItemStatus } from '../lifecycle/order-item-status.js';
import type { ChaosInput } from '../webhooks/chaos.js';

export type StatusStep = { after: string; status: OrderItemStatus };
export type ReceiverStep = { after: string; receiver: 'down' | 'up' };
/** From this step on, the item's webhooks get this chaos (`{}` ends it); see webhooks/chaos.ts. */
export type ChaosStep = { after: string; chaos: ChaosInput };
export type ScenarioStep = StatusStep | ReceiverStep | ChaosStep;

/** Which order items a scenario attaches to by itself; every field given must match. */
export interface AttachRule {
  activity_uuid?: string;
  product_id?: string | number;
  /** Compared case-insensitively, e.g. ko@example.com. */
  lead_booker_email?: string;
  /** payment: starts when a matching item is paid (from PENDING); cancellation: when it is cancelled (from OK). */
  on: 'payment' | 'cancellation';
}

export interface Scenario {
  name: string;
  description: string;
  /** The status the item must have when the run starts. */
  from: OrderItemStatus;
  attach: AttachRule | null;
  steps: ScenarioStep[];
  /** Where it was loaded from (relative to the package for built-ins). */
  file: string;
  builtin: boolean;
}

export const isStatusStep = (s: ScenarioStep): s is StatusStep => 'status' in s;
