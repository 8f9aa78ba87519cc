import { readFileSync } from 'node:fs';
import { calculateJwkThumbprint, exportJWK, exportPKCS8, generateKeyPair, importPKCS8, SignJWT, type CryptoKey, type JWK, type JWTPayload, type KeyObject } from 'jose';
import type { Store } from '../store/index.js';

/** Ed25519 as JWS names it (RFC 8037). */
export const ALG = 'EdDSA';
/** The `typ` of a certificate's JWS header: a JWT of this kind only. */
export const CERTIFICATE_TYP = 'mock-server-certificate+jwt';

/** A key that --certificate-key names but that cannot be used: the start fails with one line (exit 2). */
export class CertificateKeyError extends Error {
  readonly userFacing = true;
}

type Key = CryptoKey | KeyObject;
interface Pair {
  kid: string;
  privateKey: Key;
  jwk: JWK;
}

async function pairOf(pem: string, where: string): Promise<Pair> {
  let privateKey: Key;
  try {
    privateKey = await importPKCS8(pem, ALG, { extractable: true });
  } catch (e) {
    throw new CertificateKeyError(`${where}: not an Ed25519 private key in PKCS#8 PEM (openssl genpkey -algorithm ed25519 writes one): ${(e as Error).message}`);
  }
  // The public half: the JWK without its private member d.
  const { d, ...jwk } = await exportJWK(privateKey);
  if (d === undefined) throw new CertificateKeyError(`${where}: not a private key`);
  if (jwk.crv !== 'Ed25519') throw new CertificateKeyError(`${where}: an ${String(jwk.crv ?? jwk.kty)} key; certificates are signed with Ed25519`);
  const kid = await calculateJwkThumbprint(jwk);
  return { kid, privateKey, jwk: { ...jwk, kid, alg: ALG, use: 'sig' } };
}

export interface CertificateKeys {
  /** The key id certificates are signed with (its RFC 7638 thumbprint). */
  readonly kid: string;
  sign(claims: JWTPayload, issuedAt: Date, expiresAt: Date): Promise<string>;
  /** The public keys, as GET /.well-known/jwks.json serves them. */
  jwks(): { keys: JWK[] };
}

/**
 * The sandbox's signing key: --certificate-key's file when given, else the key kept with the
 * server's state, made when first needed (so every instance on one database signs with one key, and
 * a restart keeps it). The kept key stays in the JWK set beside a --certificate-key, so that
 * certificates signed before still verify.
 */
export async function certificateKeys(store: Store, file: string | null): Promise<CertificateKeys> {
  let stored = store.server().certificate_key?.pkcs8;
  if (stored === undefined && file === null) {
    const { privateKey } = await generateKeyPair(ALG, { crv: 'Ed25519', extractable: true });
    const made = await exportPKCS8(privateKey);
    // Another instance may have made one meanwhile: the first kept wins.
    await store.updateServer((s) => void (s.certificate_key ??= { pkcs8: made }));
    stored = store.server().certificate_key?.pkcs8;
  }
  let pem: string | undefined;
  if (file !== null) {
    try {
      pem = readFileSync(file, 'utf8');
    } catch (e) {
      throw new CertificateKeyError(`--certificate-key ${file}: ${(e as Error).message}`);
    }
  }
  const signing = await pairOf((pem ?? stored) as string, file === null ? 'the certificate key kept with the state' : `--certificate-key ${file}`);
  const kept = stored !== undefined && file !== null ? await pairOf(stored, 'the certificate key kept with the state').catch(() => null) : null;
  const keys = [signing.jwk, ...(kept && kept.kid !== signing.kid ? [kept.jwk] : [])];
  return {
    kid: signing.kid,
    sign: (claims, issuedAt, expiresAt) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: ALG, kid: signing.kid, typ: CERTIFICATE_TYP })
        .setIssuedAt(Math.floor(issuedAt.getTime() / 1000))
        .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
        .sign(signing.privateKey),
    jwks: () => ({ keys }),
  };
}
