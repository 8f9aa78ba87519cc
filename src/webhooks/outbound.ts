import { receiverForLog } from './attempt-log.js';
import type { Delivery } from './delivery.js';
import type { Listeners } from './listeners.js';
import { serializePayload } from './payload.js';
import { WebhookSender, type AttemptResult } from './sender.js';
import { deliveryHeaders } from './signer.js';
import type { WebhookTargets } from './targets.js';

export interface OutboundOptions {
  targets: WebhookTargets;
  /** A listener's deliveries go over its connection instead. */
  listeners: Listeners;
  headerPrefix: string;
  /** Wall-clock time for signature timestamps (receivers compare them with their own clock). */
  wall: () => Date;
  timeoutMs?: number;
  deadlineMs?: number;
  /** Connections per receiver: as many as requests in all (the sending slots hold applications to their shares). */
  connections: number;
}

export const NO_RECEIVER = 'no webhook URL is configured for this application';

/**
 * Where a delivery leaves this instance: the one place that sends a delivery to its application's
 * receiver (or over its listener's connection), with its id and timestamp, signed when the receiver has a secret. Everything before it (ordering, slots, chaos,
 * leases) decides when; everything after it records what the receiver answered.
 */
export class Outbound {
  readonly sender: WebhookSender;
  /** A sender that connects to public addresses only, for receivers partners set on a shared sandbox (made when first needed). */
  #guarded: WebhookSender | null = null;

  constructor(private readonly opts: OutboundOptions) {
    this.sender = new WebhookSender({ timeoutMs: opts.timeoutMs, deadlineMs: opts.deadlineMs, connections: opts.connections });
  }

  /** Whether the delivery has somewhere to go now: a listener's always (it fails while none is connected), else the application's receiver (a new URL also redirects pending retries). */
  has(d: Delivery): boolean {
    return d.target === 'listener' || this.opts.targets.of(d.application) !== null;
  }

  /** Where the application's webhooks go (password hidden), for log lines; null without a receiver. */
  receiver(application: string): string | null {
    return receiverForLog(this.opts.targets.of(application)?.url);
  }

  /** The POST itself, with the delivery's id and timestamp, signed when the receiver has a secret. */
  async send(d: Delivery): Promise<AttemptResult> {
    if (d.target === 'listener') {
      const body = serializePayload(d.payload);
      const { secret } = this.opts.listeners.secret(d.application, this.opts.targets.secretOf(d.application));
      return this.opts.listeners.relay(d, body, deliveryHeaders({ id: d.id, body, secret, headerPrefix: this.opts.headerPrefix, at: this.opts.wall() }), this.sender.deadlineMs);
    }
    const target = this.opts.targets.of(d.application);
    if (!target) return { error: NO_RECEIVER, duration_ms: 0, delivered: false };
    const body = serializePayload(d.payload);
    const headers = deliveryHeaders({ id: d.id, body, secret: target.secret, headerPrefix: this.opts.headerPrefix, at: this.opts.wall() });
    return (target.publicOnly ? this.#publicOnly() : this.sender).send(target.url, body, headers);
  }

  async close(): Promise<void> {
    await Promise.all([this.sender.close(), this.#guarded?.close()]);
  }

  #publicOnly(): WebhookSender {
    return (this.#guarded ??= new WebhookSender({ timeoutMs: this.sender.timeoutMs, deadlineMs: this.sender.deadlineMs, connections: this.opts.connections, publicOnly: true }));
  }
}
