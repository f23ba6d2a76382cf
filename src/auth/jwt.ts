import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createLocalJWKSet, createRemoteJWKSet, customFetch, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { Config } from '../config.js';
import { DomainError } from '../domain/errors.js';
import { badGateway, outsideReasonOf } from '../domain/platform/outside.js';
import { unauthorized } from '../http/errors.js';
import { isPlan, type Plan } from './plans.js';
import { tokenScopes } from './scopes.js';

/** Compact JWS: three base64url parts. API keys never look like this. */
export const JWT_PATTERN = /^[\w-]+\.[\w-]+\.[\w-]*$/;

export interface IdentityClaims {
  subject: string;
  plan: Plan | null;
  billingCustomerId: string | null;
  email: string | null;
  name: string | null;
  /** Token expiry in ms since epoch: cached authentication never outlives it. */
  expiresAt: number | null;
  /** OAuth scopes the token grants (`scope` / `scp`); empty when it carries none. */
  scopes: string[];
}

type JwtConfig = Pick<Config, 'jwksUrl' | 'jwksFile' | 'jwksTimeoutMs' | 'jwtIssuer' | 'jwtAudience'>;

// One key set per configuration: the remote set caches keys and refetches on an unknown kid.
const keySets = new WeakMap<JwtConfig, JWTVerifyGetKey>();

export function jwtEnabled(config: JwtConfig): boolean {
  return Boolean(config.jwksUrl || config.jwksFile);
}

function keySet(config: JwtConfig): JWTVerifyGetKey {
  let set = keySets.get(config);
  if (!set) {
    set = config.jwksUrl
      ? createRemoteJWKSet(new URL(config.jwksUrl), { cooldownDuration: 30_000, timeoutDuration: config.jwksTimeoutMs ?? 5_000, [customFetch]: jwksFetch })
      : createLocalJWKSet(JSON.parse(readFileSync(config.jwksFile!, 'utf8')));
    keySets.set(config, set);
  }
  return set;
}

const JWKS_WHAT = "the identity provider's key set (JWKS_URL)";

/** jose's fetch of the key set, with a redirect or an error status named as such (jose only says 'Expected 200 OK'). */
async function jwksFetch(url: string, options: RequestInit): Promise<Response> {
  const res = await fetch(url, { ...options, redirect: 'manual' });
  const host = new URL(url).host;
  if (res.status >= 300 && res.status < 400) throw badGateway(JWKS_WHAT, host, 'redirect', `${res.status} to ${(res.headers.get('location') ?? '?').slice(0, 200)}`);
  if (res.status !== 200) throw badGateway(JWKS_WHAT, host, 'status', `HTTP ${res.status}`);
  return res;
}

/**
 * A JWKS_URL that cannot be fetched is the identity provider's failure, not the token's: a 502
 * naming the host and the reason (unreachable, TLS, timeout, redirect or status), never a 500 or a 401.
 */
function jwksFailure(config: JwtConfig, err: unknown): DomainError | null {
  if (!config.jwksUrl) return null;
  if (err instanceof DomainError) return err;
  const what = JWKS_WHAT;
  const host = new URL(config.jwksUrl).host;
  if (err instanceof errors.JWKSTimeout) return badGateway(what, host, 'timeout', err.message);
  if (err instanceof errors.JOSEError) {
    // jwksFetch names redirects and statuses; this is what jose says when its own checks fail.
    return /JSON Web Key Set HTTP response/.test(err.message) ? badGateway(what, host, 'status', err.message) : null;
  }
  const r = outsideReasonOf(err);
  return r ? badGateway(what, host, r.reason, r.cause) : null;
}

/**
 * A claim by plain name or as a namespaced custom claim (`https://example.com/plan`), the form
 * identity providers such as Auth0 require for non-standard claims.
 */
function claim(payload: JWTPayload, name: string): unknown {
  if (payload[name] !== undefined) return payload[name];
  for (const [k, v] of Object.entries(payload)) if (k.endsWith(`/${name}`)) return v;
  return undefined;
}

function optionalString(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 && value.length <= 320 ? value : null;
}

/**
 * Verifies signature, expiry, issuer and audience; any failure is a 401 that names the reason class only.
 * `resource` (RFC 8707) replaces the configured audience: a token for the MCP endpoint must name it in `aud`.
 */
export async function verifyIdentityToken(config: JwtConfig, token: string, resource?: string): Promise<IdentityClaims> {
  let payload: JWTPayload;
  const audience = resource ?? config.jwtAudience;
  try {
    ({ payload } = await jwtVerify(token, keySet(config), {
      ...(config.jwtIssuer ? { issuer: config.jwtIssuer } : {}),
      ...(audience ? { audience } : {}),
      algorithms: ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384', 'EdDSA'],
      clockTolerance: 5,
    }));
  } catch (err) {
    const outside = jwksFailure(config, err);
    if (outside) throw outside;
    if (err instanceof errors.JWTExpired) throw unauthorized('Identity token expired');
    if (err instanceof errors.JWTClaimValidationFailed) throw unauthorized(`Identity token rejected: ${err.claim} claim check failed`);
    if (err instanceof errors.JOSEError) throw unauthorized('Invalid identity token');
    throw err;
  }
  const subject = optionalString(payload.sub);
  if (!subject) throw unauthorized('Identity token has no subject');
  const rawPlan = claim(payload, 'plan');
  if (rawPlan !== undefined && !isPlan(rawPlan)) throw unauthorized('Identity token carries an unknown plan');
  return {
    subject,
    plan: (rawPlan as Plan | undefined) ?? null,
    billingCustomerId: optionalString(claim(payload, 'billing_customer_id')),
    email: optionalString(claim(payload, 'email')),
    name: optionalString(claim(payload, 'name')),
    expiresAt: typeof payload.exp === 'number' ? payload.exp * 1000 : null,
    scopes: tokenScopes(payload),
  };
}

/** Cache key of a verified token (per audience it was checked against): never the token itself. */
export function hashToken(token: string, resource?: string): string {
  return 'jwt:' + createHash('sha256').update(token).digest('hex') + (resource ? `|${resource}` : '');
}
