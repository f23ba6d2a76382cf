import type { Services } from '../services.js';
import { unauthorized } from '../http/errors.js';
import { findActiveKeyByHash } from '../domain/apiKeys.js';
import { hashApiKey, KEY_PATTERN } from './keys.js';
import type { Principal } from './principal.js';

/** Resolves `Authorization: Bearer <key>` to a principal, or throws 401. */
export async function authenticate(services: Services, header: string | undefined): Promise<Principal> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match) throw unauthorized('Missing bearer token');
  const token = match[1]!;
  if (!KEY_PATTERN.test(token)) throw unauthorized('Invalid API key');
  const hash = hashApiKey(token);
  const cached = services.authCache.get(hash);
  if (cached) return cached;
  const found = await findActiveKeyByHash(services.db, hash);
  if (!found) throw unauthorized('Invalid, expired or revoked API key');
  services.authCache.set(hash, found.principal, found.expiresAt);
  return found.principal;
}
