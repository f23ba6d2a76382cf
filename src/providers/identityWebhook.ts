import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Identity-provider webhooks are verified with the Svix / Standard Webhooks scheme (what Clerk
 * uses): headers svix-id, svix-timestamp, svix-signature (or webhook-id, webhook-timestamp,
 * webhook-signature); signature list "v1,<base64 HMAC-SHA256(key, id.timestamp.body)>" separated
 * by spaces; secret "whsec_<base64 key>"; timestamps older or newer than 5 minutes are refused.
 */

function keyFromSecret(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
}

export function signSvix(secret: string, id: string, timestamp: number, body: string): string {
  return 'v1,' + createHmac('sha256', keyFromSecret(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
}

export type SvixCheck = { ok: true; id: string } | { ok: false; reason: string };

export function verifySvix(secret: string, headers: Record<string, string>, bodies: string[], toleranceSeconds = 300, now = Date.now()): SvixCheck {
  const id = headers['svix-id'] ?? headers['webhook-id'];
  const ts = headers['svix-timestamp'] ?? headers['webhook-timestamp'];
  const sigs = headers['svix-signature'] ?? headers['webhook-signature'];
  if (!id || !ts || !sigs) return { ok: false, reason: 'missing webhook signature headers' };
  if (!/^\d+$/.test(ts)) return { ok: false, reason: 'malformed webhook timestamp' };
  if (Math.abs(now / 1000 - Number(ts)) > toleranceSeconds) return { ok: false, reason: 'webhook timestamp outside the tolerance' };
  const given = sigs.split(' ').map((s) => s.trim()).filter((s) => s.startsWith('v1,')).map((s) => Buffer.from(s));
  for (const body of bodies) {
    const expected = Buffer.from(signSvix(secret, id, Number(ts), body));
    if (given.some((g) => g.length === expected.length && timingSafeEqual(g, expected))) return { ok: true, id };
  }
  return { ok: false, reason: 'webhook signature mismatch' };
}
