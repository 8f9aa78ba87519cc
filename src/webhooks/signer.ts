import { createHmac } from 'node:crypto';

/**
 * A delivery's id and timestamp, and its signatures (INTERFACE.md section 5). Every request carries
 * the id and timestamp under both schemes' names (a receiver deduplicates on the id whether or not it
 * checks signatures); a request with a secret carries both signatures too:
 *
 * - vendor: `<prefix>Webhook-Id`, `<prefix>Webhook-Timestamp`, `<prefix>Signature: t=<unix s>,v1=<hex>`
 *   where hex = HMAC-SHA256("<t>.<raw body>") keyed with the secret's UTF-8 bytes, exactly as configured.
 * - Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>` where
 *   base64 = HMAC-SHA256("<id>.<t>.<raw body>"). The Standard Webhooks convention writes secrets as
 *   `whsec_<base64 of the key>`; verifiers strip the prefix and base64-decode the rest. So a secret
 *   starting with `whsec_` is used that way (the decoded bytes are the key), and any other ("plain")
 *   secret's UTF-8 bytes are the key: verify it with `new Webhook('whsec_' + base64(secret))`, or
 *   `new Webhook(secret, { format: 'raw' })` for an ASCII secret.
 */
export const STANDARD_PREFIX = 'whsec_';

/** The HMAC key the Standard Webhooks signature uses for a configured secret. */
export function standardWebhooksKey(secret: string): Buffer {
  if (secret.startsWith(STANDARD_PREFIX)) {
    const b64 = secret.slice(STANDARD_PREFIX.length);
    const key = Buffer.from(b64, 'base64');
    // A whsec_ value that is not base64 (or decodes to nothing) is treated as plain, never as an empty key.
    if (key.length > 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(b64)) return key;
  }
  return Buffer.from(secret, 'utf8');
}

export interface SignInput {
  /** Message id: the delivery id, the same on every attempt so receivers can deduplicate. */
  id: string;
  /** The raw body, exactly as sent. */
  body: string;
  /** None: the request goes unsigned. */
  secret?: string | null;
  /** Vendor header prefix, e.g. X-Service-. */
  headerPrefix: string;
  /** Wall-clock time of the attempt (never the server clock: receivers check it against their own). */
  at: Date;
}

export function deliveryHeaders(input: SignInput): Record<string, string> {
  const t = String(Math.floor(input.at.getTime() / 1000));
  const p = input.headerPrefix;
  const headers = { [`${p}Webhook-Id`]: input.id, [`${p}Webhook-Timestamp`]: t, 'webhook-id': input.id, 'webhook-timestamp': t };
  if (!input.secret) return headers;
  const vendor = createHmac('sha256', Buffer.from(input.secret, 'utf8')).update(`${t}.${input.body}`).digest('hex');
  const standard = createHmac('sha256', standardWebhooksKey(input.secret))
    .update(`${input.id}.${t}.${input.body}`)
    .digest('base64');
  return { ...headers, [`${p}Signature`]: `t=${t},v1=${vendor}`, 'webhook-signature': `v1,${standard}` };
}
