/**
 * The events `mock-server trigger` makes happen: each is a built-in scenario run on one order item
 * (the scenario's file says the moves, its `from` the status the item must have), booked on a
 * fixture activity that leaves the item in that status after payment.
 */
export interface TriggerEvent {
  name: string;
  scenario: string;
  /** What a partner's receiver sees, in one line. */
  says: string;
}

export const EVENTS: readonly TriggerEvent[] = [
  { name: 'confirmed', scenario: 'instant-confirmation', says: 'the supplier confirms the booking' },
  { name: 'refused', scenario: 'refusal', says: 'the supplier refuses the booking' },
  { name: 'confirmed-later', scenario: 'delayed-confirmation', says: 'the supplier confirms two minutes later (the clock is moved)' },
  { name: 'cancelled', scenario: 'cancellation', says: 'a confirmed booking is cancelled and refunded' },
  { name: 'cancellation-error', scenario: 'cancellation-error', says: 'the cancellation fails at the supplier, then is refunded after all' },
  { name: 'cancellation-error-kept', scenario: 'cancellation-error-kept', says: 'the cancellation fails and the booking stands' },
  { name: 'duplicate-delivery', scenario: 'duplicate-delivery', says: 'the confirmation\'s webhook arrives twice (same webhook-id)' },
  { name: 'receiver-down', scenario: 'receiver-down', says: 'the receiver is down for three minutes while the booking is confirmed; a retry gets through' },
];

/** Fixture activities a booking starts from: one that waits for confirmation (PENDING), one confirmed at payment (OK). */
export const ACTIVITY_FOR = {
  PENDING: '0f5821c5-2046-11e7-9cc9-06a7e332783f',
  OK: '4e451a8a-2ee5-493f-aa12-a39f13d7253e',
} as const;

/** The lead booker of a trigger's booking: an address no built-in scenario attaches to. */
export const LEAD_BOOKER = 'trigger@example.com';

export const OVERRIDES = ['activity', 'quantity', 'email'] as const;
export type Override = (typeof OVERRIDES)[number];
