import { randomUUID } from 'node:crypto';
import { ORDER_ITEM_STATUSES, type OrderItemStatus } from '../lifecycle/order-item-status.js';
import { buildPayload, serializePayload } from './payload.js';
import { WebhookSender, type AttemptResult } from './sender.js';
import { redactUrl, splitCredentials } from './url.js';
import { deliveryHeaders } from './signer.js';

/** What `mock-server webhooks check` and POST /__admin/webhooks/check test a receiver with. */
export interface CheckOptions {
  /** The receiver; user:password in it are sent as Basic credentials. */
  url: string;
  /** The shared secret: without one, the signature checks are skipped. */
  secret?: string | null;
  /** `user:password` for Basic credentials (instead of, or over, those in the URL). */
  basic?: string | null;
  headerPrefix: string;
  /** Per phase of a request (connect, the answer's head, each pause in its body), ms; default 5000, the sender's. */
  timeoutMs?: number;
  /** The whole of each request, ms; default 10000, the sender's deadline of an attempt. */
  deadlineMs?: number;
  /** The whole check, ms; default three deadlines. Checks not run by then are skipped, saying so. */
  totalMs?: number;
  /** Wall-clock time for signatures; tests pass a fixed one. */
  now?: () => Date;
  /** Connect only to public addresses (a partner's check on a shared sandbox). */
  publicOnly?: boolean;
}

export interface Check {
  id: string;
  title: string;
  /** passed, failed, or skipped (with the reason in advice). */
  result: 'passed' | 'failed' | 'skipped';
  /** What was sent: the deliveries' ids, statuses and what was special about them. */
  sent: string[];
  /** What came back, one entry per request. */
  got: string[];
  /** How to pass it (failed or skipped), or what passing means. */
  advice: string;
}

export interface CheckReport {
  receiver: string;
  passed: boolean;
  checks: Check[];
}

/** A receiver that could not be reached at all: bad input for the CLI (exit 2), not a failed check. */
export class ReceiverUnreachable extends Error {
  readonly userFacing = true;
}

const STALE_S = 6 * 60;
const OK_STATUS: OrderItemStatus = 'OK';

/**
 * Runs the receiver checks one after another (each is a real POST to the receiver, with a
 * spec-shaped "Update order item" body) and reports each: passed or failed, what was sent, what came
 * back and what to fix.
 */
export async function checkReceiver(opts: CheckOptions): Promise<CheckReport> {
  const now = opts.now ?? (() => new Date());
  const sender = new WebhookSender({ timeoutMs: opts.timeoutMs ?? 5000, deadlineMs: opts.deadlineMs, publicOnly: opts.publicOnly });
  const totalMs = opts.totalMs ?? 3 * sender.deadlineMs;
  const end = performance.now() + totalMs;
  const target = withBasic(opts.url, opts.basic ?? null);
  const orderUuid = randomUUID();
  let orderVersion = 1;
  /** One delivery: the body for an item at a version and status, signed as asked. */
  const delivery = (o: { item?: string; version?: number; status?: OrderItemStatus; id?: string } = {}) => {
    const at = now();
    const item = o.item ?? randomUUID();
    orderVersion++;
    const body = serializePayload(
      buildPayload({ order: { id: 4000001, uuid: orderUuid, created: at, updated: at, version: orderVersion }, item: { uuid: item, created: at, updated: at, version: o.version ?? 2, status: o.status ?? OK_STATUS } }),
    );
    return { id: o.id ?? `whd_check_${randomUUID().replace(/-/g, '').slice(0, 24)}`, item, body, status: o.status ?? OK_STATUS };
  };
  const sign = (id: string, body: string, at: Date = now()) => deliveryHeaders({ id, body, secret: opts.secret, headerPrefix: opts.headerPrefix, at });
  /** Requests not sent because the check's time ran out: a check with one is skipped. */
  let unsent = 0;
  const send = async (url: string, body: string, headers: Record<string, string>): Promise<AttemptResult> => {
    const left = Math.floor(end - performance.now());
    if (left <= 0) return (unsent++, { error: 'not sent', duration_ms: 0, delivered: false });
    return sender.send(url, body, headers, Math.min(sender.deadlineMs, left));
  };
  const answer = (r: AttemptResult) => (r.status_code !== undefined ? `${r.status_code} in ${r.duration_ms} ms` : `no answer: ${r.error} (after ${r.duration_ms} ms)`);
  const only = (scheme: 'vendor' | 'standard', headers: Record<string, string>) =>
    Object.fromEntries(Object.entries(headers).filter(([k]) => (scheme === 'standard') === k.startsWith('webhook-')));
  const checks: Check[] = [];
  let unsentBefore = 0;
  const add = (c: Check) => {
    const cut = unsent > unsentBefore;
    unsentBefore = unsent;
    const notRun = `Not run: the check stops after ${totalMs} ms in all, and its requests took that. Answer each delivery in full (status, headers and body) within ${sender.deadlineMs} ms.`;
    checks.push(cut ? { ...c, result: 'skipped', sent: [], got: [], advice: notRun } : c);
  };

  try {
    // 1. A correctly signed delivery: answered 200 within the time limit.
    const first = delivery();
    const r1 = await send(target, first.body, sign(first.id, first.body));
    if (r1.status_code === undefined && /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH/.test(r1.error ?? '')) {
      throw new ReceiverUnreachable(`nothing answers at ${redactUrl(opts.url)}: ${r1.error}`);
    }
    add({
      id: 'signed-delivery', title: 'A correctly signed delivery is answered 200 within 5 s', result: r1.status_code === 200 ? 'passed' : 'failed',
      sent: [`${first.id}: order item ${first.item}, status ${first.status}${opts.secret ? ', signed (both schemes)' : ''}`], got: [answer(r1)],
      advice: 'Answer 200 (only 200 counts: 201 and 204 are retried) as soon as the delivery is stored; do slow work after answering.',
    });

    // 2. The same delivery again: a redelivery is acknowledged, not rejected.
    const r2 = await send(target, first.body, sign(first.id, first.body));
    add({
      id: 'redelivery', title: 'The same delivery again (same delivery id) is answered 200', result: r2.status_code === 200 ? 'passed' : 'failed',
      sent: [`${first.id} again, same body, a fresh signature`], got: [answer(r2)],
      advice: 'Deduplicate on the delivery id (webhook-id) or on order_item_uuid + order_item_version, and answer 200 to a delivery already seen: a 4xx makes it retried for an hour.',
    });

    // 3-6. Signatures: a tampered body, and a stale timestamp, each scheme on its own.
    for (const scheme of ['vendor', 'standard'] as const) {
      const header = scheme === 'vendor' ? `${opts.headerPrefix}Signature` : 'webhook-signature';
      if (!opts.secret) {
        for (const kind of ['tampered', 'stale'])
          add({ id: `${kind}-${scheme}`, title: `${kind === 'tampered' ? 'A tampered body' : 'A signature over a timestamp older than 5 minutes'} is refused (${header})`, result: 'skipped', sent: [], got: [], advice: 'Give the secret (--secret) to check that the receiver verifies signatures.' });
        continue;
      }
      const d = delivery();
      const forged = d.body.replace(`"order_item_status":"${d.status}"`, '"order_item_status":"REFUNDED"');
      const rt = await send(target, forged, only(scheme, sign(d.id, d.body)));
      add({
        id: `tampered-${scheme}`, title: `A tampered body under the original signature is refused (${header})`, result: refused(rt) ? 'passed' : 'failed',
        sent: [`${d.id}: the body of status ${d.status} changed to REFUNDED, ${header} of the original body only`], got: [answer(rt)],
        advice: `Compute the HMAC-SHA256 over the raw body bytes as received (before parsing) and compare it in constant time with ${header}; answer 400 or 401 when it differs or is missing.`,
      });
      const s = delivery();
      const rs = await send(target, s.body, only(scheme, sign(s.id, s.body, new Date(now().getTime() - STALE_S * 1000))));
      add({
        id: `stale-${scheme}`, title: `A valid signature over a timestamp older than 5 minutes is refused (${header})`, result: refused(rs) ? 'passed' : 'failed',
        sent: [`${s.id}: signed correctly, with a timestamp ${STALE_S / 60} minutes old`], got: [answer(rs)],
        advice: `Refuse a delivery whose ${scheme === 'vendor' ? `${opts.headerPrefix}Webhook-Timestamp (or t= of ${header})` : 'webhook-timestamp'} is more than 5 minutes from your clock: it protects against replays.`,
      });
    }

    // 7. Basic credentials: wrong ones are refused.
    const creds = splitCredentials(target).authorization;
    if (!creds) {
      add({ id: 'basic-wrong', title: 'Wrong Basic credentials are refused', result: 'skipped', sent: [], got: [], advice: 'Give the credentials (--basic user:pass, or in the URL) to check that the receiver checks them.' });
    } else {
      const d = delivery();
      const wrong = withBasic(opts.url, `${decodeURIComponent(new URL(target).username)}:not-the-password`);
      const rb = await send(wrong, d.body, sign(d.id, d.body));
      add({
        id: 'basic-wrong', title: 'Wrong Basic credentials are refused', result: refused(rb) ? 'passed' : 'failed',
        sent: [`${d.id} with the right user and a wrong password`], got: [answer(rb)],
        advice: 'Compare the Authorization header with the expected user and password, and answer 401 when it differs.',
      });
    }

    // 8. Versions out of order: both acknowledged.
    const item = randomUUID();
    const v3 = delivery({ item, version: 3, status: 'REFUND_STARTED' });
    const v2 = delivery({ item, version: 2, status: 'OK' });
    const r3 = await send(target, v3.body, sign(v3.id, v3.body));
    const r2b = await send(target, v2.body, sign(v2.id, v2.body));
    add({
      id: 'out-of-order', title: "An item's version 3, then its version 2: both answered 200", result: r3.status_code === 200 && r2b.status_code === 200 ? 'passed' : 'failed',
      sent: [`${v3.id}: item ${item} version 3 ${v3.status}`, `${v2.id}: item ${item} version 2 ${v2.status}`], got: [answer(r3), answer(r2b)],
      advice: 'Keep the highest order_item_version per item and ignore (but answer 200 to) an older one: retries can deliver versions out of order.',
    });

    // 9. Every status of the lifecycle.
    const results = [];
    for (const status of ORDER_ITEM_STATUSES) {
      const d = delivery({ status });
      results.push({ status, r: await send(target, d.body, sign(d.id, d.body)) });
    }
    const bad = results.filter((x) => x.r.status_code !== 200);
    add({
      id: 'every-status', title: `Every order-item status is accepted (${ORDER_ITEM_STATUSES.join(', ')})`, result: bad.length ? 'failed' : 'passed',
      sent: results.map((x) => `status ${x.status}`), got: results.map((x) => `${x.status}: ${answer(x.r)}`),
      advice: `Accept every status, CANCELLATION_ERROR included${bad.length ? ` (refused: ${bad.map((x) => x.status).join(', ')})` : ''}; an unknown one is no reason to refuse the delivery.`,
    });
  } finally {
    await sender.close();
  }
  return { receiver: redactUrl(target), passed: checks.every((c) => c.result !== 'failed'), checks };
}

/** A refusal: an answer that is not 2xx (no answer at all is no refusal: it would be retried). */
function refused(r: AttemptResult): boolean {
  return r.status_code !== undefined && (r.status_code < 200 || r.status_code > 299);
}

function withBasic(url: string, basic: string | null): string {
  if (!basic) return url;
  const u = new URL(url);
  const i = basic.indexOf(':');
  u.username = encodeURIComponent(basic.slice(0, i));
  u.password = encodeURIComponent(basic.slice(i + 1));
  return u.toString();
}
