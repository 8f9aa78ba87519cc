import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Tenant } from '../store/index.js';
import type { Delivery } from '../webhooks/index.js';
import { serializePayload } from '../webhooks/payload.js';
import { WebhookSender } from '../webhooks/sender.js';
import { deliveryHeaders } from '../webhooks/signer.js';
import type { RunRecord } from './record.js';

const TRIES = 3;

/** Whether the run's probe is still to send (or to send again: nothing answered it). */
const due = (r: RunRecord) => r.state === 'running' && (r.probe === null || (r.probe.status === null && r.probe.error !== null && r.probe.tries < TRIES));

/**
 * The one badly signed webhook of a run: a copy of a delivery the application's receiver answered
 * 200 during the run, under a delivery id of its own, signed (both schemes) with a secret that is
 * not the receiver's. Sent once the receiver is known to be up and has a secret; claimed in the
 * store first, so one instance sends it. Its answer is kept in the run; nothing enters the delivery log.
 */
export class Prober {
  #guarded: WebhookSender | null = null;

  constructor(private readonly app: FastifyInstance) {}

  async maybeSend(run: RunRecord): Promise<boolean> {
    const { app } = this;
    if (!due(run)) return false;
    const target = app.webhooks.target(run.application);
    if (!target?.secret) return false;
    const since = Date.parse(run.started_at);
    const delivered = (Object.values(app.store.tenant(run.application).deliveries) as unknown as Delivery[]).find((d) => Date.parse(d.created_at) >= since && d.attempts.some((a) => a.status_code === 200));
    if (!delivered) return false;
    const id = `whd_cert_${createHash('sha256').update(`${run.id}\n${run.probe?.tries ?? 0}`).digest('hex').slice(0, 20)}`;
    const claimed = await app.store.update(run.application, (t: Tenant) => {
      const r = t.certifications[run.id] as unknown as RunRecord | undefined;
      if (!r || !due(r)) return false;
      r.probe = { id, status: null, error: null, tries: (r.probe?.tries ?? 0) + 1, sent_at: app.now(run.application).toISOString() };
      return true;
    });
    if (!claimed) return false;
    const body = serializePayload(delivered.payload);
    // Signature timestamps are wall-clock time (receivers compare them with their own clock), as the dispatcher's.
    const headers = deliveryHeaders({ id, body, secret: `${target.secret}-not-the-secret`, headerPrefix: app.config.headerPrefix, at: new Date() });
    const sender = target.publicOnly ? (this.#guarded ??= new WebhookSender({ publicOnly: true })) : app.webhooks.sender;
    const result = await sender.send(target.url, body, headers);
    await app.store.update(run.application, (t: Tenant) => {
      const r = t.certifications[run.id] as unknown as RunRecord | undefined;
      if (r?.probe?.id !== id) return;
      r.probe = { ...r.probe, status: result.status_code ?? null, error: result.status_code === undefined ? (result.error ?? 'no answer') : null };
    });
    return true;
  }

  async close(): Promise<void> {
    await this.#guarded?.close();
  }
}
