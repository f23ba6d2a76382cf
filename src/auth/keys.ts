import { hash, randomBytes } from 'node:crypto';

export const KEY_PATTERN = /^gc_[0-9a-f]{32}$/;
/** A key's id (`key_id`), as generateApiKey makes it. */
export const KEY_ID_PATTERN = /^key_[0-9a-f]{16}$/;

/** A new API key: `gc_` + 32 random hex characters. Only its hash is ever stored. */
export function generateApiKey(): { key: string; hash: string; prefix: string; keyId: string } {
  const key = `gc_${randomBytes(16).toString('hex')}`;
  return { key, hash: hashApiKey(key), prefix: key.slice(0, 7), keyId: `key_${randomBytes(8).toString('hex')}` }; // KEY_ID_PATTERN
}

// Keys carry 128 random bits, so a fast unsalted digest is safe and allows lookup by hash. One-shot
// crypto.hash: a third of createHash's CPU for a key this short (runs on every authenticated request).
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}
