import { createHash, randomBytes } from 'node:crypto';
import type { Partner } from '../http/service-headers.js';
import type { Store, TokenRecord } from '../store/index.js';
import type { Client } from './clients.js';
import { clip } from '../http/errors.js';
import { Memo } from '../memo.js';
import { sweepDue } from '../schedule/index.js';
import { formatDuration } from '../time/duration.js';

/** Seconds a token lives, as the spec gives for most tokens. */
export const TOKEN_LIFETIME_S = 3600;

/**
 * A new access token for an application: `<the application, base64url>.<32 random bytes, base64url>`.
 * The secret part comes from the OS's CSPRNG, not from the seeded random source, so that knowing the
 * seed does not reveal tokens and two servers started with the same seed never share one. The
 * application in front is no secret: it says where to look the token up, so that checking one costs
 * the same at any number of applications (and on another instance, which did not issue it).
 */
export function newToken(application: string): string {
  return `${Buffer.from(application).toString('base64url')}.${randomBytes(32).toString('base64url')}`;
}

/** The application a token names (its part before the dot), or null for one that names none. */
export function tokenApplication(token: string): string | null {
  const dot = token.indexOf('.');
  if (dot <= 0) return null;
  const named = token.slice(0, dot);
  const application = Buffer.from(named, 'base64url').toString();
  // Only the one spelling newToken writes: anything else names nothing.
  return Buffer.from(application).toString('base64url') === named ? application : null;
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
  const token = newToken(application);
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

/**
 * Why an expired token is refused. On an application whose own clock was moved (POST /__admin/clock
 * with its application), say so: the partner who moved it may not connect the two.
 */
function expired(store: Store, application: string, expiresAt: string, now: Date): string {
  const moved = store.tenant(application).clock_offset_ms;
  if (!moved) return `Access token expired at ${expiresAt}: call POST /login for a new one`;
  return `Access token expired at ${expiresAt} on the clock of application "${clip(application)}", which POST /__admin/clock moved by ${moved > 0 ? '+' : ''}${formatDuration(moved)} (its time is ${now.toISOString()}): call POST /login for a new one`;
}

/** Who a token stands for: the partner, in the application it is bound to. */
export interface TokenHolder {
  application: string;
  partner: Partner;
}

/** Why a token is refused, in words for a 401; `issued`: the token was issued (expired, or another application's), not guessed. */
export interface TokenRefusal {
  refused: string;
  issued: boolean;
}

/**
 * Who a token stands for, or why it is refused: one digest and one lookup in the application the
 * token names (or, for a token that names none, issued before tokens did, in `application`),
 * whatever the number of applications. The lookup is by the token's SHA-256, so its timing says
 * nothing about any valid token. With `application` (the partner API's header), a token bound to
 * another application is refused.
 */
export function checkToken(store: Store, nowOf: (application: string) => Date, token: string, application?: string): TokenHolder | TokenRefusal {
  const key = hashToken(token);
  const bound = tokenApplication(token) ?? application;
  const record = bound === undefined ? undefined : store.tenant(bound).tokens[key];
  if (bound === undefined || !record) return { refused: 'Invalid access token: call POST /login for a new one', issued: false };
  if (application !== undefined && bound !== application) return { refused: `Access token was issued for application "${clip(bound)}", not "${clip(application)}"`, issued: true };
  const now = nowOf(bound);
  if (Date.parse(record.expiresAt) <= now.getTime()) return { refused: expired(store, bound, record.expiresAt, now), issued: true };
  return { application: bound, partner: { clientId: record.clientId, scopes: record.scopes } };
}
