import type { Delivery, DeliveryAttempt } from './delivery.js';
import { redactUrl } from './url.js';

export interface AttemptLogger {
  warn(obj: object, msg: string): void;
  info?(obj: object, msg: string): void;
}

/** The webhook URL with its password hidden, for log lines. */
export function receiverForLog(url: string | undefined): string | null {
  if (url === undefined) return null;
  try {
    return redactUrl(url);
  } catch {
    return '(unparsable URL)';
  }
}

/**
 * One line per attempt: item, status sent, receiver, the answer or error, duration and what comes
 * next (chaos named when it was on purpose). The message reads on its own (pretty logs); `webhook`
 * holds the same for JSON lines. Failures are warnings, deliveries info.
 */
export function logAttempt(log: AttemptLogger, d: Delivery, attempt: DeliveryAttempt, receiver: string | null, next: Delivery): void {
  const ms = attempt.duration_ms < 10 ? attempt.duration_ms.toFixed(1) : String(Math.round(attempt.duration_ms));
  const answer = attempt.status_code !== undefined ? `${attempt.status_code} in ${ms} ms` : `${attempt.error ?? 'error'} after ${ms} ms`;
  const outcome = next.state === 'pending' ? `next attempt ${next.next_attempt_at ?? '?'}` : next.state;
  const webhook = {
    delivery: d.id,
    application: d.application,
    order_item_uuid: d.order_item_uuid,
    order_item_status: d.payload.order_item_status,
    receiver,
    ...(attempt.status_code !== undefined ? { status_code: attempt.status_code } : { error: attempt.error }),
    duration_ms: attempt.duration_ms,
    attempt: next.attempts.length,
    state: next.state,
    next_attempt_at: next.next_attempt_at,
    ...(attempt.chaos ? { chaos: attempt.chaos } : {}),
  };
  const chaos = attempt.chaos ? ` (chaos: ${attempt.chaos})` : '';
  const msg = `webhook ${d.payload.order_item_status} for item ${d.order_item_uuid}${chaos} → ${receiver ?? '(no webhook URL)'}: ${answer}, ${outcome}`;
  if (next.state === 'delivered') log.info?.({ webhook }, msg);
  else log.warn({ webhook }, msg);
}
