// Ed25519 JWS (alg EdDSA with a kid header) for the federation: what this service signs with its own
// keys (signingKeys, published at /.well-known/a2a-jwks.json) and what it verifies against a peer's
// registered public keys.
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { CompactSign, compactVerify, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import type { Db } from '../../store/db.js';
import { signingKeys } from '../identity/signingKeys.js';

/** Signs a JSON payload with the service's first active key. */
export async function signPayload(db: Db, payload: Record<string, unknown>): Promise<string> {
  const [key] = await signingKeys(db);
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: 'EdDSA', kid: key!.kid, typ: 'JWT' })
    .sign(key!.privateKey);
}

/** The kid of a compact JWS's protected header, or null when it is not an EdDSA JWS with a kid. */
export function kidOf(jws: string): string | null {
  try {
    const header = decodeProtectedHeader(jws);
    return header.alg === 'EdDSA' && typeof header.kid === 'string' && header.kid ? header.kid : null;
  } catch {
    return null;
  }
}

/**
 * Verifies a compact JWS against public keys (the one whose kid the header names) and returns its
 * JSON object payload, or null for anything wrong: no kid, unknown kid, other algorithm, bad
 * signature, payload not a JSON object.
 */
export async function verifyWith(jws: string, keys: JWK[]): Promise<Record<string, unknown> | null> {
  const kid = kidOf(jws);
  if (!kid) return null;
  const jwk = keys.find((k) => k.kid === kid);
  if (!jwk || jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519') return null;
  try {
    const key = await importJWK({ kty: jwk.kty, crv: jwk.crv, x: jwk.x }, 'EdDSA');
    const { payload } = await compactVerify(jws, key, { algorithms: ['EdDSA'] });
    const parsed = JSON.parse(new TextDecoder().decode(payload)) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** SHA-256 (hex) of the RFC 8785 canonical JSON of a value: the result_hash of a completion. */
export function resultHash(value: unknown): string {
  const text = (canonicalize as unknown as (v: unknown) => string | undefined)(value);
  if (text === undefined) throw new Error('value cannot be canonicalised');
  return createHash('sha256').update(text).digest('hex');
}

export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
