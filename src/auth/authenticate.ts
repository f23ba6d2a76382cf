import type { Services } from '../services.js';
import { unauthorized } from '../http/errors.js';
import { findActiveKeyByHash } from '../domain/identity/apiKeys.js';
import { upsertExternalUser } from '../domain/identity/users.js';
import { isPlan } from './plans.js';
import { hashToken, JWT_PATTERN, jwtEnabled, verifyIdentityToken } from './jwt.js';
import { hashApiKey, KEY_PATTERN } from './keys.js';
import type { Principal } from './principal.js';

/**
 * Resolves `Authorization: Bearer <API key | identity-provider JWT>` to a principal (401 otherwise)
 * and counts the call against the caller's rate limit (429 past it). `resource` is the RFC 8707
 * resource a JWT must be bound to (the MCP endpoint); REST checks the configured audience instead.
 */
export async function authenticate(services: Services, header: string | undefined, resource?: string): Promise<Principal> {
  const principal = await identify(services, header, resource);
  await services.rateLimiter.check(principal);
  if (principal.keyId) services.keyActivity.touch(principal.keyId);
  return principal;
}

async function identify(services: Services, header: string | undefined, resource?: string): Promise<Principal> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match) throw unauthorized('Missing bearer token');
  const token = match[1]!;
  if (KEY_PATTERN.test(token)) return authenticateKey(services, token);
  if (JWT_PATTERN.test(token) && jwtEnabled(services.config)) return authenticateJwt(services, token, resource);
  throw unauthorized('Invalid API key');
}

async function authenticateKey(services: Services, token: string): Promise<Principal> {
  const hash = hashApiKey(token);
  const cached = services.authCache.get(hash);
  if (cached) return cached;
  const found = await findActiveKeyByHash(services.db, hash);
  if (!found) throw unauthorized('Invalid, expired or revoked API key');
  services.authCache.set(hash, found.principal, found.expiresAt);
  return found.principal;
}

/** Identity-provider session: the user row is created on first sight; plan and billing id come from the token. */
async function authenticateJwt(services: Services, token: string, resource?: string): Promise<Principal> {
  const cacheKey = hashToken(token, resource);
  const cached = services.authCache.get(cacheKey);
  if (cached) return cached;
  const claims = await verifyIdentityToken(services.config, token, resource);
  const user = await upsertExternalUser(services.db, {
    externalId: claims.subject,
    plan: claims.plan,
    billingCustomerId: claims.billingCustomerId,
    email: claims.email,
    name: claims.name,
  });
  if (!isPlan(user.plan)) throw unauthorized('Account has no valid plan');
  const principal: Principal = {
    userId: user.id,
    plan: user.plan,
    isAdmin: user.is_admin,
    keyId: null,
    environment: null,
    projectId: null,
    via: 'jwt',
    billingCustomerId: user.billing_customer_id ?? null,
    scopes: claims.scopes,
    storeInputPreviews: user.store_input_previews,
  };
  services.authCache.set(cacheKey, principal, claims.expiresAt);
  return principal;
}
