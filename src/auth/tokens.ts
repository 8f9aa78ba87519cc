import { createHash, randomBytes } from 'node:crypto';
import type { Partner } from '../http/service-headers.js';
import type { Store, TokenRecord } from '../store/index.js';
import type { Client } from './clients.js';
import { clip } from '../http/errors.js';
import { Memo } from '../memo.js';
import { sweepDue } from '../schedule/index.js';

/** Seconds a token lives, as the spec gives for most tokens. */
export const TOKEN_LIFETIME_S = 3600;

/**
 * A new access token. Tokens are secrets, not catalog data: they come from the OS's CSPRNG, not from
 * the seeded random source, so that knowing the seed does not reveal tokens and two servers started
 * with the same seed never share one. Nothing a test compares depends on their value.
 */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

// Digests of recently seen tokens: a client sends the same token on every request, and hashing it
// each time was a tenth of the CPU of a booking. Starts over when full.
const digests = new Memo<string>(10_000);

/** The state file keys tokens by this digest, so a copy of the file holds no usable token. */
export function hashToken(token: string): string {
  return digests.get(token, () => createHash('sha256').update(token).digest('hex'));
}

/** Expired tokens stay this long (answering "expired", which helps more than "invalid"), then go. */
const KEEP_EXPIRED_MS = 24 * 3600 * 1000;

/** Keys of tokens expired for more than a day, found on the read-only view (so that only the keys deleted count as written). */
function staleTokens(store: Store, application: string, now: number): string[] {
  if (!sweepDue(store, application, 'tokens', now)) return [];
  const tokens = store.tenant(application).tokens;
  return Object.keys(tokens).filter((k) => Date.parse((tokens[k] as TokenRecord).expiresAt) + KEEP_EXPIRED_MS < now);
}

/** Issues a token for a client in an application's tenant; resolves once it is durable. */
export async function issueToken(
  store: Store,
  now: Date,
  application: string,
  client: Client,
): Promise<{ token: string; record: TokenRecord }> {
  const token = newToken();
  const record: TokenRecord = {
    clientId: client.clientId,
    scopes: [...client.scopes],
    issuedAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + TOKEN_LIFETIME_S * 1000).toISOString(),
  };
  const key = hashToken(token);
  const stale = staleTokens(store, application, now.getTime());
  await store.update(application, (tenant) => {
    for (const k of stale) delete tenant.tokens[k];
    tenant.tokens[key] = record;
  });
  return { token, record };
}

/** The partner a token stands for in an application, or why it is refused. */
export function checkToken(store: Store, now: Date, application: string, token: string): Partner | string {
  const key = hashToken(token);
  const record = store.tenant(application).tokens[key];
  if (!record) {
    // Rare path: say why, since a sandbox user mixing up applications deserves to know.
    const owner = store.applications().find((a) => a !== application && store.tenant(a).tokens[key]);
    return owner === undefined
      ? 'Invalid access token: call POST /login for a new one'
      : `Access token was issued for application "${clip(owner)}", not "${clip(application)}"`;
  }
  if (Date.parse(record.expiresAt) <= now.getTime()) {
    return `Access token expired at ${record.expiresAt}: call POST /login for a new one`;
  }
  return { clientId: record.clientId, scopes: record.scopes };
}
