import { readFileSync } from 'node:fs';
import { createLocalJWKSet, decodeProtectedHeader, errors, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import { ALG, CERTIFICATE_TYP } from './signing.js';

/** Bad input for `certify verify` (exit 2): a file that is no certificate at all, keys that cannot be had. */
export class VerifyInputError extends Error {
  readonly userFacing = true;
}

/** What a certificate says (src/certification/runs.ts signs it). */
export interface CertificateClaims extends JWTPayload {
  suite: string;
  suite_version: number;
  application: string;
  api_version: string | null;
  requirements: Array<{ id: string; evidence: string[] }>;
}

export type Verdict = { valid: true; kid: string; claims: CertificateClaims } | { valid: false; why: string };

const COMPACT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** The certificate in a file: its one compact JWS, whitespace around it allowed. */
export function readCertificate(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new VerifyInputError(`${file}: ${(e as Error).message}`);
  }
  const token = text.trim();
  if (!COMPACT.test(token)) throw new VerifyInputError(`${file} is not a certificate: expected a compact JWS (three base64url parts joined by dots)`);
  return token;
}

/** The JWK set of a sandbox (`--url`: its /.well-known/jwks.json) or of a file (`--jwks`). */
export async function loadKeys(source: { url: string } | { file: string }): Promise<JSONWebKeySet> {
  let data: unknown;
  if ('file' in source) {
    try {
      data = JSON.parse(readFileSync(source.file, 'utf8'));
    } catch (e) {
      throw new VerifyInputError(`--jwks ${source.file}: ${(e as Error).message}`);
    }
  } else {
    const url = `${source.url.replace(/\/+$/, '')}/.well-known/jwks.json`;
    let res: Response;
    try {
      res = await fetch(url, { headers: { accept: 'application/json' } });
    } catch (e) {
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new VerifyInputError(`nothing answers at ${source.url} (${cause?.code ?? cause?.message ?? (e as Error).message}): give the sandbox's origin with --url, or its keys with --jwks FILE`);
    }
    if (!res.ok) throw new VerifyInputError(`${url} answered ${res.status}: is --url a mock-server's origin?`);
    data = await res.json().catch(() => null);
  }
  if (!data || typeof data !== 'object' || !Array.isArray((data as { keys?: unknown }).keys)) throw new VerifyInputError('the keys are not a JWK set ({"keys": [...]})');
  return data as JSONWebKeySet;
}

/**
 * Checks a certificate against a JWK set with jose: the Ed25519 signature by a key of the set (by
 * its kid), the type, the expiry (against `now`, default the real time), and the claims a certificate carries.
 * Invalid ones say why in one line: edited, expired, or signed by a key the set does not have.
 */
export async function verifyCertificate(token: string, keys: JSONWebKeySet, now?: Date): Promise<Verdict> {
  let kid = '?';
  try {
    kid = decodeProtectedHeader(token).kid ?? '?';
    const { payload } = await jwtVerify(token, createLocalJWKSet(keys), { algorithms: [ALG], typ: CERTIFICATE_TYP, ...(now ? { currentDate: now } : {}) });
    const claims = payload as CertificateClaims;
    if (typeof claims.suite !== 'string' || typeof claims.application !== 'string' || !Array.isArray(claims.requirements)) return { valid: false, why: 'signed, but not a certificate: it lacks the suite, application or requirements' };
    return { valid: true, kid, claims };
  } catch (e) {
    if (e instanceof errors.JWTExpired) return { valid: false, why: `expired: it was valid until ${new Date(Number(e.payload.exp) * 1000).toISOString()}` };
    if (e instanceof errors.JWSSignatureVerificationFailed) return { valid: false, why: 'edited: the signature does not match the content' };
    if (e instanceof errors.JWKSNoMatchingKey) return { valid: false, why: `foreign: signed with key ${kid}, which is not one of these keys (another sandbox's?)` };
    if (e instanceof errors.JOSEError) return { valid: false, why: `not a valid certificate: ${e.message}` };
    throw e;
  }
}
