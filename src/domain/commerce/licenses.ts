import { createHash, randomUUID } from 'node:crypto';
import { createLocalJWKSet, decodeProtectedHeader, errors, jwtVerify, SignJWT } from 'jose';
import type { Db, Queryable } from '../../store/db.js';
import { enqueueEmail } from './outbox.js';
import { signingKeys } from '../identity/signingKeys.js';
import { iso } from '../../lib/time.js';

/**
 * Self-hosted licenses: compact JWS (alg EdDSA, kid of one of the service's Ed25519 signing keys,
 * typ "gc-license+jwt"). Claims: iss, aud, sub = license id, iat, exp, plan, seats, customer.
 * Only the token's SHA-256 is stored; the token goes out by e-mail through the outbox and in the
 * 201 answer, once.
 */

export const LICENSE_ISSUER = 'semantic-compression-service';
export const LICENSE_AUDIENCE = 'gc-self-hosted';
export const LICENSE_TYP = 'gc-license+jwt';

export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

export interface GenerateLicenseInput {
  customer_email: string;
  customer_name?: string | null;
  seats: number;
  expires_in_days: number;
}

export async function generateLicense(db: Db, userId: string, input: GenerateLicenseInput) {
  const [key] = await signingKeys(db);
  const licenseId = randomUUID();
  const issuedAt = Math.floor(Date.now() / 1000);
  const expiresAt = issuedAt + input.expires_in_days * 86_400;
  const token = await new SignJWT({
    plan: 'enterprise',
    seats: input.seats,
    customer: { email: input.customer_email, name: input.customer_name ?? null },
  })
    .setProtectedHeader({ alg: 'EdDSA', kid: key!.kid, typ: LICENSE_TYP })
    .setIssuer(LICENSE_ISSUER)
    .setAudience(LICENSE_AUDIENCE)
    .setSubject(licenseId)
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAt)
    .sign(key!.privateKey);
  const outboxId = await db.transaction(async (tx) => {
    await tx.query(
      `insert into licenses (id, user_id, customer_email, customer_name, plan, seats, kid, token_sha256, issued_at, expires_at)
       values ($1, $2, $3, $4, 'enterprise', $5, $6, $7, to_timestamp($8), to_timestamp($9))`,
      [licenseId, userId, input.customer_email, input.customer_name ?? null, input.seats, key!.kid, sha256(token), issuedAt, expiresAt],
    );
    return enqueueEmail(tx, {
      to: input.customer_email,
      subject: 'Your self-hosted license key',
      text: [
        `License ${licenseId} (Enterprise, ${input.seats} seat${input.seats === 1 ? '' : 's'})`,
        `Valid until ${iso(expiresAt * 1000)}`,
        '',
        'Set it as GC_LICENSE_KEY on your instance:',
        '',
        token,
      ].join('\n'),
    });
  });
  return {
    license_id: licenseId,
    license_key: token,
    plan: 'enterprise' as const,
    seats: input.seats,
    customer_email: input.customer_email,
    issued_at: iso(issuedAt * 1000),
    expires_at: iso(expiresAt * 1000),
    kid: key!.kid,
    emailed: true,
    outbox_id: outboxId,
  };
}

export type LicenseInvalidReason = 'malformed' | 'unknown_signing_key' | 'bad_signature' | 'wrong_issuer_or_audience' | 'expired' | 'not_yet_valid' | 'unknown_license' | 'revoked';

export type LicenseCheck =
  | { valid: true; licenseId: string; userId: string; plan: string; seats: number; expiresAt: Date; customerEmail: string }
  | { valid: false; reason: LicenseInvalidReason; licenseId: string | null; expiresAt: Date | null };

/** Verifies signature (against the service's signing keys), issuer, audience, expiry and the stored record. */
export async function checkLicense(db: Db, token: string): Promise<LicenseCheck> {
  let kid: string | undefined;
  try {
    const header = decodeProtectedHeader(token);
    kid = header.kid;
    if (header.alg !== 'EdDSA' || header.typ !== LICENSE_TYP) return { valid: false, reason: 'malformed', licenseId: null, expiresAt: null };
  } catch {
    return { valid: false, reason: 'malformed', licenseId: null, expiresAt: null };
  }
  const keys = await signingKeys(db);
  if (!keys.some((k) => k.kid === kid)) return { valid: false, reason: 'unknown_signing_key', licenseId: null, expiresAt: null };
  const jwks = createLocalJWKSet({ keys: keys.map((k) => k.publicJwk) });
  let payload;
  try {
    ({ payload } = await jwtVerify(token, jwks, { issuer: LICENSE_ISSUER, audience: LICENSE_AUDIENCE, algorithms: ['EdDSA'], typ: LICENSE_TYP }));
  } catch (err) {
    const unverified = decodeUnverified(token);
    if (err instanceof errors.JWTExpired) return { valid: false, reason: 'expired', ...unverified };
    if (err instanceof errors.JWTClaimValidationFailed) {
      return { valid: false, reason: err.claim === 'nbf' || err.claim === 'iat' ? 'not_yet_valid' : 'wrong_issuer_or_audience', ...unverified };
    }
    if (err instanceof errors.JWSSignatureVerificationFailed) return { valid: false, reason: 'bad_signature', ...unverified };
    return { valid: false, reason: 'malformed', licenseId: null, expiresAt: null };
  }
  const licenseId = String(payload.sub ?? '');
  const [row] = await db.query<{ id: string; user_id: string; status: string; seats: number; plan: string; expires_at: Date; customer_email: string; token_sha256: string }>(
    'select id, user_id, status, seats, plan, expires_at, customer_email, token_sha256 from licenses where id = $1',
    [/^[0-9a-f-]{36}$/i.test(licenseId) ? licenseId : '00000000-0000-0000-0000-000000000000'],
  );
  const expiresAt = typeof payload.exp === 'number' ? new Date(payload.exp * 1000) : null;
  if (!row || row.token_sha256 !== sha256(token)) return { valid: false, reason: 'unknown_license', licenseId, expiresAt };
  if (row.status === 'revoked') return { valid: false, reason: 'revoked', licenseId, expiresAt };
  return { valid: true, licenseId, userId: row.user_id, plan: row.plan, seats: row.seats, expiresAt: new Date(row.expires_at), customerEmail: row.customer_email };
}

function decodeUnverified(token: string): { licenseId: string | null; expiresAt: Date | null } {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { sub?: unknown; exp?: unknown };
    return {
      licenseId: typeof payload.sub === 'string' ? payload.sub : null,
      expiresAt: typeof payload.exp === 'number' ? new Date(payload.exp * 1000) : null,
    };
  } catch {
    return { licenseId: null, expiresAt: null };
  }
}

export async function revokeLicense(db: Queryable, userId: string, licenseId: string): Promise<boolean> {
  const rows = await db.query(`update licenses set status = 'revoked' where id = $1 and user_id = $2 and status = 'active' returning id`, [licenseId, userId]);
  return rows.length > 0;
}
